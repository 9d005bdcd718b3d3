-- Seeded demo readings get their own upstream, `demo` (issue 28, decision 0187): no seeded
-- row claims a provider. Connections and sync runs keep the provider upstreams only.
ALTER TABLE "device_readings" DROP CONSTRAINT "device_readings_upstream_known";--> statement-breakpoint
ALTER TABLE "device_readings" ADD CONSTRAINT "device_readings_upstream_known" CHECK ("device_readings"."upstream" IN ('google-health', 'fitbit-legacy', 'omron', 'dexcom', 'demo'));