CREATE TABLE "device_reading_days" (
	"participant_id" integer NOT NULL,
	"team_id" integer NOT NULL,
	"metric_key" text NOT NULL,
	"day" date NOT NULL,
	"readings" integer NOT NULL,
	"minutes" integer NOT NULL,
	"value_sum" double precision,
	"first_at" timestamp with time zone NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	CONSTRAINT "device_reading_days_pkey" PRIMARY KEY("participant_id","team_id","metric_key","day")
);
--> statement-breakpoint
ALTER TABLE "device_reading_days" ADD CONSTRAINT "device_reading_days_participant_fk" FOREIGN KEY ("participant_id","team_id") REFERENCES "public"."participants"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Hand-written (decision 0058): the summary of the readings stored before this migration,
-- the SELECT of readingDaysFromScratch() in modules/sync/daily-summary.ts. Keep both equal.
INSERT INTO "device_reading_days" ("participant_id", "team_id", "metric_key", "day", "readings", "minutes", "value_sum", "first_at", "last_at")
SELECT participant_id, team_id, metric_key, day,
       count(*)::int,
       count(DISTINCT floor(date_part('epoch', recorded_at) / 60))::int,
       sum(value),
       min(recorded_at),
       max(recorded_at)
  FROM (
    SELECT r.*,
           (date '1970-01-01' + floor((date_part('epoch', coalesce(r.end_at, r.recorded_at)) + coalesce(r.utc_offset_minutes, 0) * 60) / 86400)::int) AS day
      FROM device_readings r
  ) r
 WHERE recorded_at >= (day::timestamp AT TIME ZONE 'UTC') - interval '38 hours'
   AND recorded_at < (day::timestamp AT TIME ZONE 'UTC') + interval '36 hours'
 GROUP BY participant_id, team_id, metric_key, day;
