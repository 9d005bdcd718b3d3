ALTER TABLE "device_reading_chunks" ADD COLUMN "value_json" jsonb[];--> statement-breakpoint
ALTER TABLE "device_reading_chunks" ADD CONSTRAINT "device_reading_chunks_value_json" CHECK ("device_reading_chunks"."value_json" is null or cardinality("device_reading_chunks"."value_json") = cardinality("device_reading_chunks"."steps_ms"));--> statement-breakpoint
-- CGM readings are chunked too (issue 29, decision 0270): a point's JSON (trend, status) is
-- an element of value_json, and stored_readings answers it, as the row's column.
CREATE OR REPLACE VIEW "stored_readings" AS
SELECT r.participant_id, r.team_id, r.metric_key, r.recorded_at, r.brand, r.end_at,
       r.utc_offset_minutes, r.value, r.value_json, r.upstream, r.data_source, r.sync_run_id,
       r.synced_at, r.recorded_at AS chunk_from, r.recorded_at AS chunk_to
  FROM device_readings r
UNION ALL
SELECT c.participant_id, c.team_id, c.metric_key, p.recorded_at, c.brand, NULL::timestamptz,
       p.utc_offset_minutes, p.value, p.value_json, c.upstream, c.data_source, c.sync_run_id,
       c.synced_at, c.period_start, c.last_at
  FROM device_reading_chunks c
  CROSS JOIN LATERAL (
    SELECT c.period_start + (sum(u.step) OVER (ORDER BY u.n)) * interval '1 millisecond' AS recorded_at,
           u.value, u.utc_offset_minutes, u.value_json
      FROM unnest(c.steps_ms, c.value, c.utc_offset_minutes, c.value_json)
           WITH ORDINALITY AS u(step, value, utc_offset_minutes, value_json, n)
  ) p;
