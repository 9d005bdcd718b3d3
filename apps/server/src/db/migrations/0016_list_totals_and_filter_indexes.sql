-- List pages (issue 29, decisions 0202 and 0203): trigram indexes for the global filter and
-- maintained totals for the unfiltered lists. PGlite loads pg_trgm (db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- An enum's cast to text is only STABLE (labels can be renamed), so it cannot be indexed;
-- this one's labels never change meaning, so its text is fixed.
CREATE FUNCTION participant_gender_label(gender participant_gender) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN gender::text;
--> statement-breakpoint
CREATE TABLE "team_trial_totals" (
	"team_id" integer PRIMARY KEY NOT NULL,
	"trials" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trial_participant_totals" (
	"trial_id" integer PRIMARY KEY NOT NULL,
	"participants" integer NOT NULL
);
--> statement-breakpoint
DROP INDEX "participants_trial_id_code_idx";--> statement-breakpoint
ALTER TABLE "team_trial_totals" ADD CONSTRAINT "team_trial_totals_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trial_participant_totals" ADD CONSTRAINT "trial_participant_totals_trial_id_trials_id_fk" FOREIGN KEY ("trial_id") REFERENCES "public"."trials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "trials_team_id_number_idx" ON "trials" USING btree ("team_id",lower("trial_number"),"creation_date" DESC NULLS FIRST,"id" DESC NULLS FIRST,"trial_number");--> statement-breakpoint
CREATE INDEX "trials_trial_number_trgm_idx" ON "trials" USING gin (lower("trial_number") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "trials_trial_name_trgm_idx" ON "trials" USING gin (lower("trial_name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "trials_trial_notes_trgm_idx" ON "trials" USING gin (lower("trial_notes") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "participants_code_trgm_idx" ON "participants" USING gin (lower("participant_code") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "participants_email_trgm_idx" ON "participants" USING gin (lower("email") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "participants_gender_trgm_idx" ON "participants" USING gin (lower(participant_gender_label("gender")) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "participants_age_trgm_idx" ON "participants" USING gin (lower(("age")::text) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "participants_notes_trgm_idx" ON "participants" USING gin (lower("notes") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "participants_trial_id_code_idx" ON "participants" USING btree ("trial_id",lower("participant_code"),"id","participant_code");
--> statement-breakpoint
-- The totals are kept by statement-level triggers with transition tables: one upsert per
-- team or trial a statement touches, in the writing transaction (a bulk insert of 1,000
-- participants updates one row once). Rows are visited in key order so two statements
-- touching the same teams or trials wait for each other instead of deadlocking.
CREATE FUNCTION team_trial_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO team_trial_totals AS totals (team_id, trials)
  SELECT team_id, count(*) FROM added_trials GROUP BY team_id ORDER BY team_id
  ON CONFLICT (team_id) DO UPDATE SET trials = totals.trials + excluded.trials;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION team_trial_totals_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- An UPDATE … FROM locks in join order: lock in key order first.
  PERFORM 1 FROM team_trial_totals WHERE team_id IN (SELECT team_id FROM removed_trials)
  ORDER BY team_id FOR UPDATE;
  UPDATE team_trial_totals AS totals SET trials = totals.trials - removed.n
  FROM (SELECT team_id, count(*) AS n FROM removed_trials GROUP BY team_id ORDER BY team_id) AS removed
  WHERE totals.team_id = removed.team_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION team_trial_totals_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A trial's team never changes today (child rows reference the pair); if it ever did,
  -- the totals would still follow. An ordinary edit returns at once, locking nothing.
  IF NOT EXISTS (SELECT 1 FROM trials_before AS before JOIN trials_after AS after
                 ON after.id = before.id WHERE after.team_id <> before.team_id) THEN
    RETURN NULL;
  END IF;
  PERFORM 1 FROM team_trial_totals
  WHERE team_id IN (SELECT team_id FROM trials_before UNION SELECT team_id FROM trials_after)
  ORDER BY team_id FOR UPDATE;
  UPDATE team_trial_totals AS totals SET trials = totals.trials - moved.n
  FROM (SELECT before.team_id, count(*) AS n FROM trials_before AS before
        JOIN trials_after AS after ON after.id = before.id
        WHERE after.team_id <> before.team_id GROUP BY before.team_id) AS moved
  WHERE totals.team_id = moved.team_id;
  INSERT INTO team_trial_totals AS totals (team_id, trials)
  SELECT after.team_id, count(*) FROM trials_before AS before
  JOIN trials_after AS after ON after.id = before.id
  WHERE after.team_id <> before.team_id GROUP BY after.team_id ORDER BY after.team_id
  ON CONFLICT (team_id) DO UPDATE SET trials = totals.trials + excluded.trials;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER team_trial_totals_add AFTER INSERT ON trials
  REFERENCING NEW TABLE AS added_trials FOR EACH STATEMENT EXECUTE FUNCTION team_trial_totals_add();
--> statement-breakpoint
CREATE TRIGGER team_trial_totals_remove AFTER DELETE ON trials
  REFERENCING OLD TABLE AS removed_trials FOR EACH STATEMENT EXECUTE FUNCTION team_trial_totals_remove();
--> statement-breakpoint
CREATE TRIGGER team_trial_totals_move AFTER UPDATE ON trials
  REFERENCING OLD TABLE AS trials_before NEW TABLE AS trials_after
  FOR EACH STATEMENT EXECUTE FUNCTION team_trial_totals_move();
--> statement-breakpoint
CREATE FUNCTION trial_participant_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO trial_participant_totals AS totals (trial_id, participants)
  SELECT trial_id, count(*) FROM added_participants GROUP BY trial_id ORDER BY trial_id
  ON CONFLICT (trial_id) DO UPDATE SET participants = totals.participants + excluded.participants;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION trial_participant_totals_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- When the trial itself is being deleted its row may be gone already (cascade): nothing to do.
  PERFORM 1 FROM trial_participant_totals
  WHERE trial_id IN (SELECT trial_id FROM removed_participants) ORDER BY trial_id FOR UPDATE;
  UPDATE trial_participant_totals AS totals SET participants = totals.participants - removed.n
  FROM (SELECT trial_id, count(*) AS n FROM removed_participants GROUP BY trial_id ORDER BY trial_id) AS removed
  WHERE totals.trial_id = removed.trial_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION trial_participant_totals_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A participant's trial never changes today; if it ever did, the totals would still follow.
  -- An ordinary edit returns at once, locking nothing.
  IF NOT EXISTS (SELECT 1 FROM participants_before AS before JOIN participants_after AS after
                 ON after.id = before.id WHERE after.trial_id <> before.trial_id) THEN
    RETURN NULL;
  END IF;
  PERFORM 1 FROM trial_participant_totals
  WHERE trial_id IN (SELECT trial_id FROM participants_before UNION SELECT trial_id FROM participants_after)
  ORDER BY trial_id FOR UPDATE;
  UPDATE trial_participant_totals AS totals SET participants = totals.participants - moved.n
  FROM (SELECT before.trial_id, count(*) AS n FROM participants_before AS before
        JOIN participants_after AS after ON after.id = before.id
        WHERE after.trial_id <> before.trial_id GROUP BY before.trial_id) AS moved
  WHERE totals.trial_id = moved.trial_id;
  INSERT INTO trial_participant_totals AS totals (trial_id, participants)
  SELECT after.trial_id, count(*) FROM participants_before AS before
  JOIN participants_after AS after ON after.id = before.id
  WHERE after.trial_id <> before.trial_id GROUP BY after.trial_id ORDER BY after.trial_id
  ON CONFLICT (trial_id) DO UPDATE SET participants = totals.participants + excluded.participants;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER trial_participant_totals_add AFTER INSERT ON participants
  REFERENCING NEW TABLE AS added_participants FOR EACH STATEMENT EXECUTE FUNCTION trial_participant_totals_add();
--> statement-breakpoint
CREATE TRIGGER trial_participant_totals_remove AFTER DELETE ON participants
  REFERENCING OLD TABLE AS removed_participants FOR EACH STATEMENT EXECUTE FUNCTION trial_participant_totals_remove();
--> statement-breakpoint
CREATE TRIGGER trial_participant_totals_move AFTER UPDATE ON participants
  REFERENCING OLD TABLE AS participants_before NEW TABLE AS participants_after
  FOR EACH STATEMENT EXECUTE FUNCTION trial_participant_totals_move();
--> statement-breakpoint
-- The totals of the rows that exist now. A table lock first, so no insert or delete can slip
-- between the count and the triggers (PostgreSQL runs the migration in one transaction).
LOCK TABLE trials, participants IN SHARE MODE;
--> statement-breakpoint
INSERT INTO team_trial_totals (team_id, trials) SELECT team_id, count(*) FROM trials GROUP BY team_id;
--> statement-breakpoint
INSERT INTO trial_participant_totals (trial_id, participants) SELECT trial_id, count(*) FROM participants GROUP BY trial_id;