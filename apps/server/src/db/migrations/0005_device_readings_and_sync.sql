-- Readings are declaratively partitioned by calendar month (UTC) on recorded_at
-- (decision 0035): drizzle cannot declare partitioning, so "PARTITION BY RANGE" was added
-- by hand to the generated CREATE TABLE. Partitions are created by the function below,
-- ahead by the partition job and on demand by the write path; there is no default
-- partition, so a month is never split between a default partition and its own.
CREATE TABLE "device_readings" (
	"participant_id" integer NOT NULL,
	"team_id" integer NOT NULL,
	"metric_key" text NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	"brand" "device_brand" NOT NULL,
	"end_at" timestamp with time zone,
	"utc_offset_minutes" smallint,
	"value" double precision,
	"value_json" jsonb,
	"upstream" text NOT NULL,
	"data_source" text,
	"sync_run_id" bigint,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_readings_pkey" PRIMARY KEY("participant_id","team_id","metric_key","recorded_at","brand"),
	CONSTRAINT "device_readings_upstream_known" CHECK ("device_readings"."upstream" IN ('google-health', 'fitbit-legacy', 'omron', 'dexcom')),
	CONSTRAINT "device_readings_has_value" CHECK ("device_readings"."value" IS NOT NULL OR "device_readings"."value_json" IS NOT NULL)
) PARTITION BY RANGE ("recorded_at");
--> statement-breakpoint
CREATE TABLE "sync_call_budgets" (
	"scope" text PRIMARY KEY NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL,
	"window_seconds" integer NOT NULL,
	"call_limit" integer NOT NULL,
	"calls_used" integer DEFAULT 0 NOT NULL,
	"blocked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sync_call_budgets_limit_positive" CHECK ("sync_call_budgets"."call_limit" > 0 AND "sync_call_budgets"."window_seconds" > 0),
	CONSTRAINT "sync_call_budgets_used_within_limit" CHECK ("sync_call_budgets"."calls_used" >= 0 AND "sync_call_budgets"."calls_used" <= "sync_call_budgets"."call_limit")
);
--> statement-breakpoint
CREATE TABLE "sync_cursors" (
	"participant_device_id" integer NOT NULL,
	"metric_key" text NOT NULL,
	"team_id" integer NOT NULL,
	"backfill_from" timestamp with time zone NOT NULL,
	"synced_until" timestamp with time zone,
	"last_run_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sync_cursors_pkey" PRIMARY KEY("participant_device_id","metric_key")
);
--> statement-breakpoint
CREATE TABLE "sync_runs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sync_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"participant_device_id" integer NOT NULL,
	"upstream" text NOT NULL,
	"kind" text NOT NULL,
	"job_id" text,
	"metrics" text[] DEFAULT ARRAY[]::text[] NOT NULL,
	"windows" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"provider_calls" integer DEFAULT 0 NOT NULL,
	"rows_inserted" integer DEFAULT 0 NOT NULL,
	"rows_updated" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"outcome" text DEFAULT 'running' NOT NULL,
	"error_type" text,
	CONSTRAINT "sync_runs_kind_known" CHECK ("sync_runs"."kind" IN ('backfill', 'incremental', 'webhook', 'manual')),
	CONSTRAINT "sync_runs_outcome_known" CHECK ("sync_runs"."outcome" IN ('running', 'succeeded', 'partial', 'backed_off', 'failed', 'needs_reconsent')),
	CONSTRAINT "sync_runs_upstream_known" CHECK ("sync_runs"."upstream" IN ('google-health', 'fitbit-legacy', 'omron', 'dexcom'))
);
--> statement-breakpoint
CREATE TABLE "sync_states" (
	"participant_device_id" integer PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"backoff_until" timestamp with time zone,
	"backoff_reason" text,
	"consecutive_forbidden" integer DEFAULT 0 NOT NULL,
	"last_run_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_outcome" text,
	"last_error_type" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sync_states_last_outcome_known" CHECK ("sync_states"."last_outcome" IS NULL OR "sync_states"."last_outcome" IN ('running', 'succeeded', 'partial', 'backed_off', 'failed', 'needs_reconsent'))
);
--> statement-breakpoint
ALTER TABLE "device_readings" ADD CONSTRAINT "device_readings_participant_fk" FOREIGN KEY ("participant_id","team_id") REFERENCES "public"."participants"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_cursors" ADD CONSTRAINT "sync_cursors_participant_device_id_participant_devices_id_fk" FOREIGN KEY ("participant_device_id") REFERENCES "public"."participant_devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_cursors" ADD CONSTRAINT "sync_cursors_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_participant_device_id_participant_devices_id_fk" FOREIGN KEY ("participant_device_id") REFERENCES "public"."participant_devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_states" ADD CONSTRAINT "sync_states_participant_device_id_participant_devices_id_fk" FOREIGN KEY ("participant_device_id") REFERENCES "public"."participant_devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_states" ADD CONSTRAINT "sync_states_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_readings_recorded_at_brin" ON "device_readings" USING brin ("recorded_at");--> statement-breakpoint
CREATE INDEX "sync_cursors_team_id_idx" ON "sync_cursors" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "sync_runs_team_id_idx" ON "sync_runs" USING btree ("team_id","started_at");--> statement-breakpoint
CREATE INDEX "sync_runs_participant_device_idx" ON "sync_runs" USING btree ("participant_device_id","started_at");--> statement-breakpoint
CREATE INDEX "sync_states_team_id_idx" ON "sync_states" USING btree ("team_id");
--> statement-breakpoint
-- Creates the monthly partitions covering [first_at, last_at]; returns how many it created.
-- The advisory lock serialises concurrent creators (two worker processes, one month).
CREATE FUNCTION device_readings_ensure_partitions(first_at timestamptz, last_at timestamptz)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  month_start timestamp := date_trunc('month', first_at AT TIME ZONE 'UTC');
  month_end timestamp;
  partition_name text;
  created integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(7344210035);
  WHILE month_start <= (last_at AT TIME ZONE 'UTC') LOOP
    month_end := month_start + interval '1 month';
    partition_name := 'device_readings_p' || to_char(month_start, 'YYYYMM');
    IF to_regclass('public.' || partition_name) IS NULL THEN
      EXECUTE format(
        'CREATE TABLE public.%I PARTITION OF public.device_readings FOR VALUES FROM (%L) TO (%L)',
        partition_name,
        to_char(month_start, 'YYYY-MM-DD') || ' 00:00:00+00',
        to_char(month_end, 'YYYY-MM-DD') || ' 00:00:00+00'
      );
      created := created + 1;
    END IF;
    month_start := month_end;
  END LOOP;
  RETURN created;
END;
$$;
