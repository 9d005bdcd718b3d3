ALTER TABLE "sync_states" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "sync_states" ADD COLUMN "lease_until" timestamp with time zone;