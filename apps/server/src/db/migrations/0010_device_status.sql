CREATE TABLE "participant_device_status" (
	"participant_device_id" integer PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"devices" jsonb NOT NULL,
	"checked_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "participant_device_status" ADD CONSTRAINT "participant_device_status_participant_device_id_participant_devices_id_fk" FOREIGN KEY ("participant_device_id") REFERENCES "public"."participant_devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participant_device_status" ADD CONSTRAINT "participant_device_status_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "participant_device_status_team_id_idx" ON "participant_device_status" USING btree ("team_id");