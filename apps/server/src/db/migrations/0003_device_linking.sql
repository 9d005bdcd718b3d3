CREATE TABLE "device_authorization_requests" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "device_authorization_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state_hash" text NOT NULL,
	"team_id" integer NOT NULL,
	"participant_id" integer NOT NULL,
	"brand" "device_brand" NOT NULL,
	"upstream" text NOT NULL,
	"code_verifier_encrypted" text,
	"origin" text NOT NULL,
	"initiated_by_user_id" integer,
	"consent_token_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "device_authorization_requests_state_hash_unique" UNIQUE("state_hash"),
	CONSTRAINT "device_authorization_requests_upstream_known" CHECK ("device_authorization_requests"."upstream" IN ('google-health', 'fitbit-legacy', 'omron', 'dexcom')),
	CONSTRAINT "device_authorization_requests_origin_known" CHECK ("device_authorization_requests"."origin" IN ('staff', 'consent_link', 'portal'))
);
--> statement-breakpoint
ALTER TABLE "one_time_tokens" DROP CONSTRAINT "one_time_tokens_purpose_known";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "one_time_tokens" ADD COLUMN "device_brand" text;--> statement-breakpoint
ALTER TABLE "participant_devices" ADD COLUMN "last_refreshed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "device_authorization_requests" ADD CONSTRAINT "device_authorization_requests_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_authorization_requests" ADD CONSTRAINT "device_authorization_requests_initiated_by_user_id_users_id_fk" FOREIGN KEY ("initiated_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_authorization_requests" ADD CONSTRAINT "device_authorization_requests_consent_token_id_one_time_tokens_id_fk" FOREIGN KEY ("consent_token_id") REFERENCES "public"."one_time_tokens"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_authorization_requests" ADD CONSTRAINT "device_authorization_requests_participant_fk" FOREIGN KEY ("participant_id","team_id") REFERENCES "public"."participants"("id","team_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_authorization_requests_participant_idx" ON "device_authorization_requests" USING btree ("participant_id","team_id");--> statement-breakpoint
CREATE INDEX "device_authorization_requests_team_id_idx" ON "device_authorization_requests" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "device_authorization_requests_expires_at_idx" ON "device_authorization_requests" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "device_authorization_requests_initiated_by_idx" ON "device_authorization_requests" USING btree ("initiated_by_user_id");--> statement-breakpoint
CREATE INDEX "device_authorization_requests_consent_token_idx" ON "device_authorization_requests" USING btree ("consent_token_id");--> statement-breakpoint
ALTER TABLE "one_time_tokens" ADD CONSTRAINT "one_time_tokens_purpose_known" CHECK ("one_time_tokens"."purpose" IN ('password_reset', 'signup_invitation', 'participant_consent', 'participant_email_verification'));