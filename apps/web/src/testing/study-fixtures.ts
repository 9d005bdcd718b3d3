import type { Participant, Trial } from '@trialpulse/shared';

/** A trial of the data-page tests: "TP-11 Sleep study" of team 1. */
export const SLEEP_STUDY: Trial = {
  trialId: 11,
  trialNumber: 'TP-11',
  trialName: 'Sleep study',
  trialNotes: '',
  trialOwnerEmail: null,
  teamId: 1,
  creationDate: '2026-01-01',
};

/** A participant of SLEEP_STUDY with the given code (no e-mail, no notes). */
export const sleepStudyParticipant = (id: number, code: string): Participant => ({
  id,
  participant_code: code,
  participant_code_suffix: code.slice(-3),
  email: null,
  gender: 'female',
  age: 40,
  notes: null,
  trialId: SLEEP_STUDY.trialId,
  created_at: '2026-01-02T00:00:00.000Z',
});
