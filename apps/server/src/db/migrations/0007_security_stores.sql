CREATE TABLE "human_check_spent" (
	"challenge" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_hits" (
	"key" text PRIMARY KEY NOT NULL,
	"hits" integer DEFAULT 0 NOT NULL,
	"reset_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "login_throttles" DROP CONSTRAINT "login_throttles_pkey";--> statement-breakpoint
ALTER TABLE "login_throttles" ADD COLUMN "scope" text DEFAULT 'login' NOT NULL;--> statement-breakpoint
ALTER TABLE "login_throttles" ADD CONSTRAINT "login_throttles_pkey" PRIMARY KEY("scope","username_key");--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "successor_encrypted" text;--> statement-breakpoint
CREATE INDEX "human_check_spent_expires_at_idx" ON "human_check_spent" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "rate_limit_hits_reset_at_idx" ON "rate_limit_hits" USING btree ("reset_at");--> statement-breakpoint
ALTER TABLE "login_throttles" ADD CONSTRAINT "login_throttles_scope_known" CHECK ("login_throttles"."scope" IN ('login', 'sfa'));