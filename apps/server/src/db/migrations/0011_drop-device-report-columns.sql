ALTER TABLE "participant_devices" DROP COLUMN "device_battery";--> statement-breakpoint
ALTER TABLE "participant_devices" DROP COLUMN "device_battery_level";--> statement-breakpoint
ALTER TABLE "participant_devices" DROP COLUMN "device_last_sync_at";--> statement-breakpoint
ALTER TABLE "participant_devices" DROP COLUMN "device_seen_at";