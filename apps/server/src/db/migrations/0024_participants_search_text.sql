-- The participants list's filter reads one stored, lowered text per participant (issue 29,
-- decision 0266) instead of lower() of five columns: search_text (every searched field) for a
-- team that hides none, search_text_always (code, gender, age) plus the visible e-mail or notes
-- column otherwise. Their trigram indexes replace the code, gender and age ones.
DROP INDEX "participants_code_trgm_idx";--> statement-breakpoint
DROP INDEX "participants_gender_trgm_idx";--> statement-breakpoint
DROP INDEX "participants_age_trgm_idx";--> statement-breakpoint
ALTER TABLE "participants" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower("participants"."participant_code") || chr(31) || lower(participant_gender_label("participants"."gender")) || chr(31) || coalesce(lower(("participants"."age")::text), '') || chr(31) || coalesce(lower("participants"."email"), '') || chr(31) || coalesce(lower("participants"."notes"), '')) STORED;--> statement-breakpoint
ALTER TABLE "participants" ADD COLUMN "search_text_always" text GENERATED ALWAYS AS (lower("participants"."participant_code") || chr(31) || lower(participant_gender_label("participants"."gender")) || chr(31) || coalesce(lower(("participants"."age")::text), '')) STORED;--> statement-breakpoint
CREATE INDEX "participants_search_text_trgm_idx" ON "participants" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "participants_search_text_always_trgm_idx" ON "participants" USING gin ("search_text_always" gin_trgm_ops);