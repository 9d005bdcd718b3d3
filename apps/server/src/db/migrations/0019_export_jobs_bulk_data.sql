ALTER TABLE "export_jobs" ALTER COLUMN "created_by" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD COLUMN "backend_client_id" text;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_backend_client_id_backend_clients_client_id_fk" FOREIGN KEY ("backend_client_id") REFERENCES "public"."backend_clients"("client_id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "export_jobs_backend_client_id_idx" ON "export_jobs" USING btree ("backend_client_id");--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_one_requester" CHECK (("export_jobs"."created_by" IS NULL) <> ("export_jobs"."backend_client_id" IS NULL));