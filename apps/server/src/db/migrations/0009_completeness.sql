CREATE TABLE "completeness_alert_states" (
	"participant_id" integer PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"kinds" text[] DEFAULT ARRAY[]::text[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "completeness_digest_runs" (
	"day" date PRIMARY KEY NOT NULL,
	"mails" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "completeness_digest_subscriptions" (
	"user_id" integer NOT NULL,
	"trial_id" integer NOT NULL,
	"team_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "completeness_digest_subscriptions_pkey" PRIMARY KEY("user_id","trial_id")
);
--> statement-breakpoint
CREATE TABLE "completeness_thresholds" (
	"trial_id" integer PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"min_wear_hours" integer NOT NULL,
	"min_cgm_usage_percent" integer NOT NULL,
	"min_bp_readings_per_day" integer NOT NULL,
	"max_days_without_sync" integer NOT NULL,
	"updated_by_user_id" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "completeness_thresholds_wear" CHECK ("completeness_thresholds"."min_wear_hours" BETWEEN 0 AND 24),
	CONSTRAINT "completeness_thresholds_cgm" CHECK ("completeness_thresholds"."min_cgm_usage_percent" BETWEEN 0 AND 100),
	CONSTRAINT "completeness_thresholds_bp" CHECK ("completeness_thresholds"."min_bp_readings_per_day" BETWEEN 0 AND 24),
	CONSTRAINT "completeness_thresholds_sync" CHECK ("completeness_thresholds"."max_days_without_sync" BETWEEN 1 AND 90)
);
--> statement-breakpoint
ALTER TABLE "participant_devices" ADD COLUMN "device_battery" text;--> statement-breakpoint
ALTER TABLE "participant_devices" ADD COLUMN "device_battery_level" smallint;--> statement-breakpoint
ALTER TABLE "participant_devices" ADD COLUMN "device_last_sync_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "participant_devices" ADD COLUMN "device_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "completeness_alert_states" ADD CONSTRAINT "completeness_alert_states_participant_fk" FOREIGN KEY ("participant_id","team_id") REFERENCES "public"."participants"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "completeness_digest_subscriptions" ADD CONSTRAINT "completeness_digest_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "completeness_digest_subscriptions" ADD CONSTRAINT "completeness_digest_subscriptions_trial_fk" FOREIGN KEY ("trial_id","team_id") REFERENCES "public"."trials"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "completeness_thresholds" ADD CONSTRAINT "completeness_thresholds_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "completeness_thresholds" ADD CONSTRAINT "completeness_thresholds_updated_by_user_id_users_id_fk" FOREIGN KEY ("updated_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "completeness_thresholds" ADD CONSTRAINT "completeness_thresholds_trial_fk" FOREIGN KEY ("trial_id","team_id") REFERENCES "public"."trials"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "completeness_alert_states_participant_id_team_id_idx" ON "completeness_alert_states" USING btree ("participant_id","team_id");--> statement-breakpoint
CREATE INDEX "completeness_digest_subscriptions_trial_id_team_id_idx" ON "completeness_digest_subscriptions" USING btree ("trial_id","team_id");--> statement-breakpoint
CREATE INDEX "completeness_thresholds_trial_id_team_id_idx" ON "completeness_thresholds" USING btree ("trial_id","team_id");--> statement-breakpoint
CREATE INDEX "completeness_thresholds_team_id_idx" ON "completeness_thresholds" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "completeness_thresholds_updated_by_user_id_idx" ON "completeness_thresholds" USING btree ("updated_by_user_id");