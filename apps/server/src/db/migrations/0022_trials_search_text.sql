-- The trials list's filter reads one stored, lowered text per trial (issue 29, decision 0265)
-- instead of lower() of three columns; its trigram index replaces the three per column.
DROP INDEX "trials_trial_number_trgm_idx";--> statement-breakpoint
DROP INDEX "trials_trial_name_trgm_idx";--> statement-breakpoint
DROP INDEX "trials_trial_notes_trgm_idx";--> statement-breakpoint
ALTER TABLE "trials" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower("trials"."trial_number") || chr(31) || lower("trials"."trial_name") || chr(31) || coalesce(lower("trials"."trial_notes"), '')) STORED;--> statement-breakpoint
CREATE INDEX "trials_search_text_trgm_idx" ON "trials" USING gin ("search_text" gin_trgm_ops);