CREATE TABLE "device_reading_totals" (
	"participant_id" integer NOT NULL,
	"team_id" integer NOT NULL,
	"metric_key" text NOT NULL,
	"brand" "device_brand" NOT NULL,
	"readings" bigint NOT NULL,
	CONSTRAINT "device_reading_totals_pkey" PRIMARY KEY("participant_id","team_id","metric_key","brand")
);
--> statement-breakpoint
ALTER TABLE "device_reading_totals" ADD CONSTRAINT "device_reading_totals_participant_fk" FOREIGN KEY ("participant_id","team_id") REFERENCES "public"."participants"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The totals are kept by statement-level triggers with transition tables (decision 0257, as
-- the list totals of decision 0202): one upsert per participant × metric × brand a statement
-- touches, in the writing transaction, for every writer of either store. Rows are locked in
-- key order so two statements touching the same totals wait rather than deadlock. A delete
-- only updates (a participant's cascade may have removed its totals already); an insert or
-- an update (a chunk rewritten by a merge changes its size) adds the difference.
CREATE FUNCTION device_reading_totals_rows_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO device_reading_totals AS totals (participant_id, team_id, metric_key, brand, readings)
  SELECT participant_id, team_id, metric_key, brand, count(*) FROM added_readings
   GROUP BY participant_id, team_id, metric_key, brand ORDER BY participant_id, team_id, metric_key, brand
  ON CONFLICT (participant_id, team_id, metric_key, brand) DO UPDATE SET readings = totals.readings + excluded.readings;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION device_reading_totals_rows_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- An UPDATE … FROM locks in join order: lock in key order first.
  PERFORM 1 FROM device_reading_totals
   WHERE (participant_id, team_id, metric_key, brand) IN
         (SELECT participant_id, team_id, metric_key, brand FROM removed_readings)
   ORDER BY participant_id, team_id, metric_key, brand FOR UPDATE;
  UPDATE device_reading_totals AS totals SET readings = totals.readings - removed.n
    FROM (SELECT participant_id, team_id, metric_key, brand, count(*) AS n FROM removed_readings
           GROUP BY participant_id, team_id, metric_key, brand) AS removed
   WHERE totals.participant_id = removed.participant_id AND totals.team_id = removed.team_id
     AND totals.metric_key = removed.metric_key AND totals.brand = removed.brand;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION device_reading_totals_rows_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Upserts of existing rows change no key: the difference is empty and nothing is locked.
  INSERT INTO device_reading_totals AS totals (participant_id, team_id, metric_key, brand, readings)
  SELECT participant_id, team_id, metric_key, brand, sum(n) FROM (
    SELECT participant_id, team_id, metric_key, brand, 1 AS n FROM readings_after
    UNION ALL
    SELECT participant_id, team_id, metric_key, brand, -1 FROM readings_before) AS changed
   GROUP BY participant_id, team_id, metric_key, brand HAVING sum(n) <> 0
   ORDER BY participant_id, team_id, metric_key, brand
  ON CONFLICT (participant_id, team_id, metric_key, brand) DO UPDATE SET readings = totals.readings + excluded.readings;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER device_reading_totals_rows_added AFTER INSERT ON device_readings
  REFERENCING NEW TABLE AS added_readings FOR EACH STATEMENT EXECUTE FUNCTION device_reading_totals_rows_added();
--> statement-breakpoint
CREATE TRIGGER device_reading_totals_rows_removed AFTER DELETE ON device_readings
  REFERENCING OLD TABLE AS removed_readings FOR EACH STATEMENT EXECUTE FUNCTION device_reading_totals_rows_removed();
--> statement-breakpoint
CREATE TRIGGER device_reading_totals_rows_moved AFTER UPDATE ON device_readings
  REFERENCING OLD TABLE AS readings_before NEW TABLE AS readings_after
  FOR EACH STATEMENT EXECUTE FUNCTION device_reading_totals_rows_moved();
--> statement-breakpoint
CREATE FUNCTION device_reading_totals_chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO device_reading_totals AS totals (participant_id, team_id, metric_key, brand, readings)
  SELECT participant_id, team_id, metric_key, brand, sum(cardinality(steps_ms)) FROM added_chunks
   GROUP BY participant_id, team_id, metric_key, brand ORDER BY participant_id, team_id, metric_key, brand
  ON CONFLICT (participant_id, team_id, metric_key, brand) DO UPDATE SET readings = totals.readings + excluded.readings;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION device_reading_totals_chunks_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM device_reading_totals
   WHERE (participant_id, team_id, metric_key, brand) IN
         (SELECT participant_id, team_id, metric_key, brand FROM removed_chunks)
   ORDER BY participant_id, team_id, metric_key, brand FOR UPDATE;
  UPDATE device_reading_totals AS totals SET readings = totals.readings - removed.n
    FROM (SELECT participant_id, team_id, metric_key, brand, sum(cardinality(steps_ms)) AS n FROM removed_chunks
           GROUP BY participant_id, team_id, metric_key, brand) AS removed
   WHERE totals.participant_id = removed.participant_id AND totals.team_id = removed.team_id
     AND totals.metric_key = removed.metric_key AND totals.brand = removed.brand;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION device_reading_totals_chunks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO device_reading_totals AS totals (participant_id, team_id, metric_key, brand, readings)
  SELECT participant_id, team_id, metric_key, brand, sum(n) FROM (
    SELECT participant_id, team_id, metric_key, brand, cardinality(steps_ms) AS n FROM chunks_after
    UNION ALL
    SELECT participant_id, team_id, metric_key, brand, -cardinality(steps_ms) FROM chunks_before) AS changed
   GROUP BY participant_id, team_id, metric_key, brand HAVING sum(n) <> 0
   ORDER BY participant_id, team_id, metric_key, brand
  ON CONFLICT (participant_id, team_id, metric_key, brand) DO UPDATE SET readings = totals.readings + excluded.readings;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER device_reading_totals_chunks_added AFTER INSERT ON device_reading_chunks
  REFERENCING NEW TABLE AS added_chunks FOR EACH STATEMENT EXECUTE FUNCTION device_reading_totals_chunks_added();
--> statement-breakpoint
CREATE TRIGGER device_reading_totals_chunks_removed AFTER DELETE ON device_reading_chunks
  REFERENCING OLD TABLE AS removed_chunks FOR EACH STATEMENT EXECUTE FUNCTION device_reading_totals_chunks_removed();
--> statement-breakpoint
CREATE TRIGGER device_reading_totals_chunks_changed AFTER UPDATE ON device_reading_chunks
  REFERENCING OLD TABLE AS chunks_before NEW TABLE AS chunks_after
  FOR EACH STATEMENT EXECUTE FUNCTION device_reading_totals_chunks_changed();
--> statement-breakpoint
-- The totals of the readings stored now. A lock first, so no write slips between the count
-- and the triggers (PostgreSQL runs the migration in one transaction).
LOCK TABLE device_readings, device_reading_chunks IN SHARE MODE;
--> statement-breakpoint
INSERT INTO device_reading_totals (participant_id, team_id, metric_key, brand, readings)
SELECT participant_id, team_id, metric_key, brand, sum(n) FROM (
  SELECT participant_id, team_id, metric_key, brand, count(*) AS n FROM device_readings
   GROUP BY participant_id, team_id, metric_key, brand
  UNION ALL
  SELECT participant_id, team_id, metric_key, brand, sum(cardinality(steps_ms)) FROM device_reading_chunks
   GROUP BY participant_id, team_id, metric_key, brand) AS stored
 GROUP BY participant_id, team_id, metric_key, brand;
