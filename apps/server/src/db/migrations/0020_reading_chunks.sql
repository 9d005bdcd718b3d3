CREATE TABLE "device_reading_chunks" (
	"participant_id" integer NOT NULL,
	"team_id" integer NOT NULL,
	"metric_key" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"brand" "device_brand" NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	"steps_ms" integer[] NOT NULL,
	"value" double precision[] NOT NULL,
	"utc_offset_minutes" smallint[] NOT NULL,
	"upstream" text NOT NULL,
	"data_source" text,
	"sync_run_id" bigint NOT NULL,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_reading_chunks_pkey" PRIMARY KEY("participant_id","team_id","metric_key","period_start","brand"),
	CONSTRAINT "device_reading_chunks_upstream_known" CHECK ("device_reading_chunks"."upstream" IN ('google-health', 'fitbit-legacy', 'omron', 'dexcom', 'demo')),
	CONSTRAINT "device_reading_chunks_arrays" CHECK (cardinality("device_reading_chunks"."steps_ms") > 0 and cardinality("device_reading_chunks"."value") = cardinality("device_reading_chunks"."steps_ms") and cardinality("device_reading_chunks"."utc_offset_minutes") = cardinality("device_reading_chunks"."steps_ms"))
);
--> statement-breakpoint
ALTER TABLE "device_reading_chunks" ADD CONSTRAINT "device_reading_chunks_participant_fk" FOREIGN KEY ("participant_id","team_id") REFERENCES "public"."participants"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Every stored reading (decision 0255): rows ∪ the unnested points of chunks, in the rows'
-- columns, plus the bounds readers use to skip chunks (chunk_from: the period's start,
-- chunk_to: its last point; a row's are its instant). The running sum of the steps restarts
-- per chunk (the lateral subquery sees one chunk row). Declared with .existing() in
-- db/schema/reading-chunks.ts: drizzle-kit does not manage it.
CREATE VIEW "stored_readings" AS
SELECT r.participant_id, r.team_id, r.metric_key, r.recorded_at, r.brand, r.end_at,
       r.utc_offset_minutes, r.value, r.value_json, r.upstream, r.data_source, r.sync_run_id,
       r.synced_at, r.recorded_at AS chunk_from, r.recorded_at AS chunk_to
  FROM device_readings r
UNION ALL
SELECT c.participant_id, c.team_id, c.metric_key, p.recorded_at, c.brand, NULL::timestamptz,
       p.utc_offset_minutes, p.value, NULL::jsonb, c.upstream, c.data_source, c.sync_run_id,
       c.synced_at, c.period_start, c.last_at
  FROM device_reading_chunks c
  CROSS JOIN LATERAL (
    SELECT c.period_start + (sum(u.step) OVER (ORDER BY u.n)) * interval '1 millisecond' AS recorded_at,
           u.value, u.utc_offset_minutes
      FROM unnest(c.steps_ms, c.value, c.utc_offset_minutes)
           WITH ORDINALITY AS u(step, value, utc_offset_minutes, n)
  ) p;
