ALTER TABLE "device_reading_totals" ADD COLUMN "row_readings" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The totals also count the rows of device_readings apart (issue 29): the overview reads a
-- stream's first and last instants from the row partitions only when it has rows. The row
-- triggers keep both figures; the chunk triggers (0023) leave row_readings alone.
CREATE OR REPLACE FUNCTION device_reading_totals_rows_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO device_reading_totals AS totals (participant_id, team_id, metric_key, brand, readings, row_readings)
  SELECT participant_id, team_id, metric_key, brand, count(*), count(*) FROM added_readings
   GROUP BY participant_id, team_id, metric_key, brand ORDER BY participant_id, team_id, metric_key, brand
  ON CONFLICT (participant_id, team_id, metric_key, brand) DO UPDATE
    SET readings = totals.readings + excluded.readings, row_readings = totals.row_readings + excluded.row_readings;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION device_reading_totals_rows_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- An UPDATE … FROM locks in join order: lock in key order first.
  PERFORM 1 FROM device_reading_totals
   WHERE (participant_id, team_id, metric_key, brand) IN
         (SELECT participant_id, team_id, metric_key, brand FROM removed_readings)
   ORDER BY participant_id, team_id, metric_key, brand FOR UPDATE;
  UPDATE device_reading_totals AS totals
     SET readings = totals.readings - removed.n, row_readings = totals.row_readings - removed.n
    FROM (SELECT participant_id, team_id, metric_key, brand, count(*) AS n FROM removed_readings
           GROUP BY participant_id, team_id, metric_key, brand) AS removed
   WHERE totals.participant_id = removed.participant_id AND totals.team_id = removed.team_id
     AND totals.metric_key = removed.metric_key AND totals.brand = removed.brand;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION device_reading_totals_rows_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Upserts of existing rows change no key: the difference is empty and nothing is locked.
  INSERT INTO device_reading_totals AS totals (participant_id, team_id, metric_key, brand, readings, row_readings)
  SELECT participant_id, team_id, metric_key, brand, sum(n), sum(n) FROM (
    SELECT participant_id, team_id, metric_key, brand, 1 AS n FROM readings_after
    UNION ALL
    SELECT participant_id, team_id, metric_key, brand, -1 FROM readings_before) AS changed
   GROUP BY participant_id, team_id, metric_key, brand HAVING sum(n) <> 0
   ORDER BY participant_id, team_id, metric_key, brand
  ON CONFLICT (participant_id, team_id, metric_key, brand) DO UPDATE
    SET readings = totals.readings + excluded.readings, row_readings = totals.row_readings + excluded.row_readings;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The rows stored now. A lock first, so no write slips between the count and the triggers
-- (PostgreSQL runs the migration in one transaction).
LOCK TABLE device_readings IN SHARE MODE;
--> statement-breakpoint
UPDATE device_reading_totals AS totals SET row_readings = stored.n
  FROM (SELECT participant_id, team_id, metric_key, brand, count(*) AS n FROM device_readings
         GROUP BY participant_id, team_id, metric_key, brand) AS stored
 WHERE totals.participant_id = stored.participant_id AND totals.team_id = stored.team_id
   AND totals.metric_key = stored.metric_key AND totals.brand = stored.brand;
