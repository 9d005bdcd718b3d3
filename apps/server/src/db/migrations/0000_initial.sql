CREATE TYPE "public"."user_role" AS ENUM('Sys_Admin', 'Admin', 'User', 'Viewer');--> statement-breakpoint
CREATE TYPE "public"."participant_gender" AS ENUM('female', 'male', 'other', 'none');--> statement-breakpoint
CREATE TYPE "public"."device_brand" AS ENUM('Fitbit', 'Omron', 'Dexcom');--> statement-breakpoint
CREATE TYPE "public"."export_status" AS ENUM('pending', 'processing', 'completed', 'failed');--> statement-breakpoint
CREATE TABLE "teams" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "teams_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_name" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"subscription_starts" timestamp with time zone,
	"subscription_ends" timestamp with time zone,
	"subscription_type" text,
	"max_users" integer,
	"actual_num_of_users" integer DEFAULT 0 NOT NULL,
	"max_trials" integer,
	"actual_num_of_trials" integer DEFAULT 0 NOT NULL,
	"max_participants" integer,
	"actual_num_of_participants" integer DEFAULT 0 NOT NULL,
	"team_admin_email" text,
	"team_admin_phone" text,
	"organization" text,
	"notes" text,
	"monthly_rate_per_participant" numeric(10, 2),
	"retention_days" integer,
	"storage_location" text,
	"hidden_fields" text[] DEFAULT ARRAY['email', 'notes']::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_counts_non_negative" CHECK ("teams"."actual_num_of_users" >= 0 AND "teams"."actual_num_of_trials" >= 0 AND "teams"."actual_num_of_participants" >= 0),
	CONSTRAINT "teams_limits_non_negative" CHECK (coalesce("teams"."max_users", 0) >= 0 AND coalesce("teams"."max_trials", 0) >= 0 AND coalesce("teams"."max_participants", 0) >= 0),
	CONSTRAINT "teams_retention_days_min" CHECK ("teams"."retention_days" IS NULL OR "teams"."retention_days" >= 1),
	CONSTRAINT "teams_subscription_order" CHECK ("teams"."subscription_starts" IS NULL OR "teams"."subscription_ends" IS NULL OR "teams"."subscription_starts" <= "teams"."subscription_ends"),
	CONSTRAINT "teams_hidden_fields_known" CHECK ("teams"."hidden_fields" <@ ARRAY['email', 'notes']::text[])
);
--> statement-breakpoint
CREATE TABLE "team_user_mappings" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "team_user_mappings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"team_id" integer NOT NULL,
	"role" "user_role" NOT NULL,
	"default_team" boolean DEFAULT false NOT NULL,
	"last_selected_team" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_user_mappings_user_team_unique" UNIQUE("user_id","team_id")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "users_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"email" text NOT NULL,
	"username" text NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"organization" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"sfa_required" boolean DEFAULT true NOT NULL,
	"sfa_enabled" boolean DEFAULT false NOT NULL,
	"sfa_type" text,
	"token_version" integer DEFAULT 0 NOT NULL,
	"account_type" text DEFAULT 'staff' NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_lower_case" CHECK ("users"."email" = lower("users"."email")),
	CONSTRAINT "users_sfa_type_known" CHECK ("users"."sfa_type" IS NULL OR "users"."sfa_type" IN ('totp', 'email')),
	CONSTRAINT "users_token_version_non_negative" CHECK ("users"."token_version" >= 0),
	CONSTRAINT "users_account_type_known" CHECK ("users"."account_type" IN ('staff', 'participant'))
);
--> statement-breakpoint
CREATE TABLE "credentials" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"password_hash" text NOT NULL,
	"password_changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "login_throttles" (
	"username_key" text PRIMARY KEY NOT NULL,
	"failed_count" integer DEFAULT 0 NOT NULL,
	"window_started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "login_throttles_failed_count_non_negative" CHECK ("login_throttles"."failed_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "one_time_codes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "one_time_codes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"purpose" text NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "one_time_codes_purpose_known" CHECK ("one_time_codes"."purpose" IN ('sfa_email')),
	CONSTRAINT "one_time_codes_attempts_non_negative" CHECK ("one_time_codes"."attempts" >= 0)
);
--> statement-breakpoint
CREATE TABLE "one_time_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "one_time_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"purpose" text NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" integer,
	"email" text,
	"team_id" integer,
	"role" "user_role",
	"participant_id" integer,
	"created_by_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "one_time_tokens_token_hash_unique" UNIQUE("token_hash"),
	CONSTRAINT "one_time_tokens_purpose_known" CHECK ("one_time_tokens"."purpose" IN ('password_reset', 'signup_invitation', 'participant_consent')),
	CONSTRAINT "one_time_tokens_email_lower_case" CHECK ("one_time_tokens"."email" IS NULL OR "one_time_tokens"."email" = lower("one_time_tokens"."email"))
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "refresh_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"session_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "refresh_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "remembered_devices" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "remembered_devices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"token_hash" text NOT NULL,
	"token_version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"user_agent" text,
	CONSTRAINT "remembered_devices_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" integer NOT NULL,
	"team_id" integer,
	"token_version" integer NOT NULL,
	"auth_status" text DEFAULT 'SFAIsNotSet' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	"idle_expires_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_reason" text,
	"ip_address" text,
	"user_agent" text,
	CONSTRAINT "sessions_auth_status_known" CHECK ("sessions"."auth_status" IN ('Authorized', 'SFAIsNotSet', 'SFAVerifyCodeNeeded', 'SFAValidateCodeNeeded', 'SFAValidateEmailCodeNeeded'))
);
--> statement-breakpoint
CREATE TABLE "sfa_secrets" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"secret_encrypted" text NOT NULL,
	"verified_at" timestamp with time zone,
	"last_used_step" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trial_users" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "trial_users_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"trial_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trial_users_trial_user_unique" UNIQUE("trial_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "trials" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "trials_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"trial_number" text NOT NULL,
	"trial_name" text NOT NULL,
	"trial_notes" text,
	"trial_code" text NOT NULL,
	"owner_user_id" integer NOT NULL,
	"creation_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trials_id_team_id_unique" UNIQUE("id","team_id"),
	CONSTRAINT "trials_team_id_trial_code_unique" UNIQUE("team_id","trial_code"),
	CONSTRAINT "trials_trial_notes_max_300" CHECK (char_length("trials"."trial_notes") <= 300),
	CONSTRAINT "trials_trial_code_format" CHECK ("trials"."trial_code" ~ '^[A-Za-z0-9_]{1,20}$'),
	CONSTRAINT "trials_trial_number_not_blank" CHECK (btrim("trials"."trial_number") <> ''),
	CONSTRAINT "trials_trial_name_not_blank" CHECK (btrim("trials"."trial_name") <> '')
);
--> statement-breakpoint
CREATE TABLE "participants" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "participants_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"trial_id" integer NOT NULL,
	"participant_code" text NOT NULL,
	"participant_code_suffix" text NOT NULL,
	"email" text,
	"gender" "participant_gender" DEFAULT 'none' NOT NULL,
	"age" smallint,
	"notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "participants_id_team_id_unique" UNIQUE("id","team_id"),
	CONSTRAINT "participants_trial_code_suffix_unique" UNIQUE("trial_id","participant_code_suffix"),
	CONSTRAINT "participants_suffix_format" CHECK ("participants"."participant_code_suffix" ~ '^[0-9_]{1,12}$'),
	CONSTRAINT "participants_code_ends_with_suffix" CHECK (right("participants"."participant_code", char_length("participants"."participant_code_suffix") + 1) = '-' || "participants"."participant_code_suffix"),
	CONSTRAINT "participants_email_lower_case" CHECK ("participants"."email" IS NULL OR "participants"."email" = lower("participants"."email")),
	CONSTRAINT "participants_age_range" CHECK ("participants"."age" IS NULL OR ("participants"."age" > 0 AND "participants"."age" <= 999)),
	CONSTRAINT "participants_notes_max_300" CHECK (char_length("participants"."notes") <= 300)
);
--> statement-breakpoint
CREATE TABLE "global_device_catalog" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "global_device_catalog_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"manufacturer" "device_brand" NOT NULL,
	"device_type" text,
	"device_name" text NOT NULL,
	"context" text,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "global_device_catalog_device_name_unique" UNIQUE("device_name")
);
--> statement-breakpoint
CREATE TABLE "participant_devices" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "participant_devices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"participant_id" integer NOT NULL,
	"global_device_catalog_id" integer NOT NULL,
	"upstream" text NOT NULL,
	"provider_user_id" text,
	"access_token_encrypted" text,
	"refresh_token_encrypted" text,
	"token_expires_at" timestamp with time zone,
	"scopes" text[] DEFAULT ARRAY[]::text[] NOT NULL,
	"authorization_status" text DEFAULT 'pending' NOT NULL,
	"authorization_date" timestamp with time zone,
	"needs_reconsent" boolean DEFAULT false NOT NULL,
	"last_sync_at" timestamp with time zone,
	"last_sync_error" text,
	"notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "participant_devices_participant_device_unique" UNIQUE("participant_id","global_device_catalog_id"),
	CONSTRAINT "participant_devices_upstream_known" CHECK ("participant_devices"."upstream" IN ('google-health', 'fitbit-legacy', 'omron', 'dexcom')),
	CONSTRAINT "participant_devices_authorization_status_known" CHECK ("participant_devices"."authorization_status" IN ('pending', 'authorized', 'revoked', 'error'))
);
--> statement-breakpoint
CREATE TABLE "team_allowed_brands" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "team_allowed_brands_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"brand_name" "device_brand" NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_allowed_brands_team_brand_unique" UNIQUE("team_id","brand_name")
);
--> statement-breakpoint
CREATE TABLE "team_supported_devices" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "team_supported_devices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"global_device_catalog_id" integer NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_supported_devices_team_device_unique" UNIQUE("team_id","global_device_catalog_id"),
	CONSTRAINT "team_supported_devices_id_team_id_unique" UNIQUE("id","team_id")
);
--> statement-breakpoint
CREATE TABLE "device_data_points" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "device_data_points_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"participant_id" integer NOT NULL,
	"participant_device_id" integer,
	"metric_key" text NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	"value" double precision,
	"value_json" jsonb,
	"units" text,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_data_points_participant_metric_time_unique" UNIQUE("participant_id","metric_key","recorded_at"),
	CONSTRAINT "device_data_points_has_value" CHECK ("device_data_points"."value" IS NOT NULL OR "device_data_points"."value_json" IS NOT NULL)
);
--> statement-breakpoint
CREATE TABLE "device_metric_settings" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "device_metric_settings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"team_supported_device_id" integer NOT NULL,
	"metric_catalog_id" integer,
	"metric_key" text NOT NULL,
	"metric_name" text NOT NULL,
	"metric_units" text,
	"is_enabled" boolean DEFAULT true NOT NULL,
	"retention_days" integer DEFAULT 30 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_metric_settings_device_metric_unique" UNIQUE("team_supported_device_id","metric_key"),
	CONSTRAINT "device_metric_settings_retention_days_min" CHECK ("device_metric_settings"."retention_days" >= 1),
	CONSTRAINT "device_metric_settings_metric_name_not_blank" CHECK (btrim("device_metric_settings"."metric_name") <> '')
);
--> statement-breakpoint
CREATE TABLE "fitbit_weekly_summaries" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "fitbit_weekly_summaries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"participant_id" integer NOT NULL,
	"avrg_resting_heart_rate_last_7days" double precision,
	"avrg_resting_heart_rate_prev_7days" double precision,
	"avrg_sleep_duration_last_7days" double precision,
	"avrg_sleep_duration_prev_7days" double precision,
	"total_steps_last_7days" double precision,
	"total_steps_prev_7days" double precision,
	"total_distance_last_7days" double precision,
	"total_distance_prev_7days" double precision,
	"total_floors_last_7days" double precision,
	"total_floors_prev_7days" double precision,
	"avrg_weight_last_7days" double precision,
	"avrg_weight_prev_7days" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fitbit_weekly_summaries_participant_unique" UNIQUE("participant_id","team_id")
);
--> statement-breakpoint
CREATE TABLE "metric_catalog" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "metric_catalog_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"device_type" text NOT NULL,
	"metric_key" text NOT NULL,
	"metric_name" text NOT NULL,
	"units" text,
	"category" text,
	"description" text,
	"available" boolean DEFAULT true NOT NULL,
	"default_retention_days" integer DEFAULT 30 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "metric_catalog_device_type_metric_key_unique" UNIQUE("device_type","metric_key"),
	CONSTRAINT "metric_catalog_default_retention_days_min" CHECK ("metric_catalog"."default_retention_days" >= 1)
);
--> statement-breakpoint
CREATE TABLE "team_device_data_storage_settings" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "team_device_data_storage_settings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"team_supported_device_id" integer NOT NULL,
	"metric_catalog_id" integer,
	"metric_key" text NOT NULL,
	"metric_name" text NOT NULL,
	"units" text,
	"is_enabled" boolean DEFAULT true NOT NULL,
	"retention_days" integer DEFAULT 30 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_device_data_storage_settings_device_metric_unique" UNIQUE("team_supported_device_id","metric_key"),
	CONSTRAINT "team_device_data_storage_settings_retention_days_min" CHECK ("team_device_data_storage_settings"."retention_days" >= 1)
);
--> statement-breakpoint
CREATE TABLE "export_jobs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "export_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"trial_id" integer,
	"status" "export_status" DEFAULT 'pending' NOT NULL,
	"job_params" jsonb NOT NULL,
	"file_size" bigint,
	"file_path" text,
	"error_message" text,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "export_jobs_file_size_non_negative" CHECK ("export_jobs"."file_size" IS NULL OR "export_jobs"."file_size" >= 0)
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_user_id" integer,
	"team_id" integer,
	"action" text NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" text,
	"before" jsonb,
	"after" jsonb,
	"request_id" text
);
--> statement-breakpoint
CREATE TABLE "contact_messages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "contact_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"email" text NOT NULL,
	"subject" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "mail_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"to_address" text NOT NULL,
	"subject" text NOT NULL,
	"text_body" text NOT NULL,
	"html_body" text,
	"template" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"send_after" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mail_outbox_status_known" CHECK ("mail_outbox"."status" IN ('pending', 'sending', 'sent', 'failed')),
	CONSTRAINT "mail_outbox_attempts_non_negative" CHECK ("mail_outbox"."attempts" >= 0)
);
--> statement-breakpoint
ALTER TABLE "team_user_mappings" ADD CONSTRAINT "team_user_mappings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_user_mappings" ADD CONSTRAINT "team_user_mappings_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "one_time_codes" ADD CONSTRAINT "one_time_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "one_time_tokens" ADD CONSTRAINT "one_time_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "one_time_tokens" ADD CONSTRAINT "one_time_tokens_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "one_time_tokens" ADD CONSTRAINT "one_time_tokens_participant_id_participants_id_fk" FOREIGN KEY ("participant_id") REFERENCES "public"."participants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "one_time_tokens" ADD CONSTRAINT "one_time_tokens_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remembered_devices" ADD CONSTRAINT "remembered_devices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sfa_secrets" ADD CONSTRAINT "sfa_secrets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trial_users" ADD CONSTRAINT "trial_users_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trial_users" ADD CONSTRAINT "trial_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trial_users" ADD CONSTRAINT "trial_users_trial_fk" FOREIGN KEY ("trial_id","team_id") REFERENCES "public"."trials"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trials" ADD CONSTRAINT "trials_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trials" ADD CONSTRAINT "trials_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_trial_fk" FOREIGN KEY ("trial_id","team_id") REFERENCES "public"."trials"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participant_devices" ADD CONSTRAINT "participant_devices_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participant_devices" ADD CONSTRAINT "participant_devices_global_device_catalog_id_global_device_catalog_id_fk" FOREIGN KEY ("global_device_catalog_id") REFERENCES "public"."global_device_catalog"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participant_devices" ADD CONSTRAINT "participant_devices_participant_fk" FOREIGN KEY ("participant_id","team_id") REFERENCES "public"."participants"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_allowed_brands" ADD CONSTRAINT "team_allowed_brands_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_supported_devices" ADD CONSTRAINT "team_supported_devices_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_supported_devices" ADD CONSTRAINT "team_supported_devices_global_device_catalog_id_global_device_catalog_id_fk" FOREIGN KEY ("global_device_catalog_id") REFERENCES "public"."global_device_catalog"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_data_points" ADD CONSTRAINT "device_data_points_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_data_points" ADD CONSTRAINT "device_data_points_participant_device_id_participant_devices_id_fk" FOREIGN KEY ("participant_device_id") REFERENCES "public"."participant_devices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_data_points" ADD CONSTRAINT "device_data_points_participant_fk" FOREIGN KEY ("participant_id","team_id") REFERENCES "public"."participants"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_metric_settings" ADD CONSTRAINT "device_metric_settings_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_metric_settings" ADD CONSTRAINT "device_metric_settings_metric_catalog_id_metric_catalog_id_fk" FOREIGN KEY ("metric_catalog_id") REFERENCES "public"."metric_catalog"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_metric_settings" ADD CONSTRAINT "device_metric_settings_device_fk" FOREIGN KEY ("team_supported_device_id","team_id") REFERENCES "public"."team_supported_devices"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fitbit_weekly_summaries" ADD CONSTRAINT "fitbit_weekly_summaries_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fitbit_weekly_summaries" ADD CONSTRAINT "fitbit_weekly_summaries_participant_fk" FOREIGN KEY ("participant_id","team_id") REFERENCES "public"."participants"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_device_data_storage_settings" ADD CONSTRAINT "team_device_data_storage_settings_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_device_data_storage_settings" ADD CONSTRAINT "team_device_data_storage_settings_metric_catalog_id_metric_catalog_id_fk" FOREIGN KEY ("metric_catalog_id") REFERENCES "public"."metric_catalog"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_device_data_storage_settings" ADD CONSTRAINT "team_device_data_storage_settings_device_fk" FOREIGN KEY ("team_supported_device_id","team_id") REFERENCES "public"."team_supported_devices"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_trial_id_trials_id_fk" FOREIGN KEY ("trial_id") REFERENCES "public"."trials"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "teams_team_name_lower_unique" ON "teams" USING btree (lower("team_name"));--> statement-breakpoint
CREATE INDEX "teams_is_active_idx" ON "teams" USING btree ("is_active");--> statement-breakpoint
CREATE INDEX "team_user_mappings_team_id_idx" ON "team_user_mappings" USING btree ("team_id");--> statement-breakpoint
CREATE UNIQUE INDEX "team_user_mappings_one_default_team" ON "team_user_mappings" USING btree ("user_id") WHERE "team_user_mappings"."default_team";--> statement-breakpoint
CREATE UNIQUE INDEX "team_user_mappings_one_last_selected_team" ON "team_user_mappings" USING btree ("user_id") WHERE "team_user_mappings"."last_selected_team";--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_unique" ON "users" USING btree (lower("username"));--> statement-breakpoint
CREATE INDEX "login_throttles_locked_until_idx" ON "login_throttles" USING btree ("locked_until");--> statement-breakpoint
CREATE INDEX "one_time_codes_user_id_idx" ON "one_time_codes" USING btree ("user_id","purpose");--> statement-breakpoint
CREATE INDEX "one_time_codes_expires_at_idx" ON "one_time_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "one_time_tokens_user_id_idx" ON "one_time_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "one_time_tokens_team_id_idx" ON "one_time_tokens" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "one_time_tokens_participant_id_idx" ON "one_time_tokens" USING btree ("participant_id");--> statement-breakpoint
CREATE INDEX "one_time_tokens_created_by_user_id_idx" ON "one_time_tokens" USING btree ("created_by_user_id");--> statement-breakpoint
CREATE INDEX "one_time_tokens_expires_at_idx" ON "one_time_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "refresh_tokens_session_id_idx" ON "refresh_tokens" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_expires_at_idx" ON "refresh_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "remembered_devices_user_id_idx" ON "remembered_devices" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "remembered_devices_expires_at_idx" ON "remembered_devices" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "sessions_user_id_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sessions_team_id_idx" ON "sessions" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "sessions_expires_at_idx" ON "sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "trial_users_team_id_idx" ON "trial_users" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "trial_users_user_id_idx" ON "trial_users" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "trial_users_trial_id_team_id_idx" ON "trial_users" USING btree ("trial_id","team_id");--> statement-breakpoint
CREATE INDEX "trials_owner_user_id_idx" ON "trials" USING btree ("owner_user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "participants_team_email_unique" ON "participants" USING btree ("team_id","email") WHERE "participants"."email" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "participants_team_id_idx" ON "participants" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "participants_trial_id_team_id_idx" ON "participants" USING btree ("trial_id","team_id");--> statement-breakpoint
CREATE INDEX "global_device_catalog_device_type_idx" ON "global_device_catalog" USING btree ("device_type");--> statement-breakpoint
CREATE INDEX "participant_devices_team_id_idx" ON "participant_devices" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "participant_devices_participant_id_team_id_idx" ON "participant_devices" USING btree ("participant_id","team_id");--> statement-breakpoint
CREATE INDEX "participant_devices_global_device_catalog_id_idx" ON "participant_devices" USING btree ("global_device_catalog_id");--> statement-breakpoint
CREATE INDEX "team_supported_devices_global_device_catalog_id_idx" ON "team_supported_devices" USING btree ("global_device_catalog_id");--> statement-breakpoint
CREATE INDEX "device_data_points_team_metric_time_idx" ON "device_data_points" USING btree ("team_id","metric_key","recorded_at");--> statement-breakpoint
CREATE INDEX "device_data_points_participant_team_idx" ON "device_data_points" USING btree ("participant_id","team_id");--> statement-breakpoint
CREATE INDEX "device_data_points_participant_device_id_idx" ON "device_data_points" USING btree ("participant_device_id");--> statement-breakpoint
CREATE INDEX "device_metric_settings_team_id_idx" ON "device_metric_settings" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "device_metric_settings_device_team_idx" ON "device_metric_settings" USING btree ("team_supported_device_id","team_id");--> statement-breakpoint
CREATE INDEX "device_metric_settings_metric_catalog_id_idx" ON "device_metric_settings" USING btree ("metric_catalog_id");--> statement-breakpoint
CREATE INDEX "fitbit_weekly_summaries_team_id_idx" ON "fitbit_weekly_summaries" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "team_device_data_storage_settings_team_id_idx" ON "team_device_data_storage_settings" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "team_device_data_storage_settings_device_team_idx" ON "team_device_data_storage_settings" USING btree ("team_supported_device_id","team_id");--> statement-breakpoint
CREATE INDEX "team_device_data_storage_settings_metric_catalog_id_idx" ON "team_device_data_storage_settings" USING btree ("metric_catalog_id");--> statement-breakpoint
CREATE INDEX "export_jobs_team_id_created_at_idx" ON "export_jobs" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "export_jobs_created_by_created_at_idx" ON "export_jobs" USING btree ("created_by","created_at");--> statement-breakpoint
CREATE INDEX "export_jobs_trial_id_idx" ON "export_jobs" USING btree ("trial_id");--> statement-breakpoint
CREATE INDEX "export_jobs_expires_at_idx" ON "export_jobs" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "audit_log_team_id_at_idx" ON "audit_log" USING btree ("team_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_actor_user_id_at_idx" ON "audit_log" USING btree ("actor_user_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_entity_idx" ON "audit_log" USING btree ("entity_type","entity_id");--> statement-breakpoint
CREATE INDEX "mail_outbox_status_send_after_idx" ON "mail_outbox" USING btree ("status","send_after");