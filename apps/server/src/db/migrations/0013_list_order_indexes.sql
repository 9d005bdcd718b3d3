CREATE INDEX "trials_team_id_creation_date_idx" ON "trials" USING btree ("team_id","creation_date","id");--> statement-breakpoint
CREATE INDEX "participants_trial_id_id_idx" ON "participants" USING btree ("trial_id","id");--> statement-breakpoint
CREATE INDEX "participants_trial_id_code_idx" ON "participants" USING btree ("trial_id",lower("participant_code"),"id");