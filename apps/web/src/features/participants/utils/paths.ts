import type { RoutePath } from '@trialpulse/shared';

/**
 * The participant routes of the shared route table. `PATHS` in `@trialpulse/shared` does
 * not name them yet, so they are typed against `RoutePath` here.
 */
export const PARTICIPANT_PATHS = {
  trialPage: '/TrialPage',
  addParticipant: '/AddParticipantPage',
  participant: '/Participant',
  participantRaw: '/ParticipantRaw',
  participantsPage: '/ParticipantsPage',
  participantOverview: '/ParticipantOverview',
  participantData: '/ParticipantDataPage',
  participantReport: '/ParticipantReport',
  fitbitParticipantData: '/FitbitParticipantDataPage',
  participantsData: '/ParticipantsDataPage',
} as const satisfies Record<string, RoutePath>;

/** Session-storage table ids (`tp.table.<id>`): one saved state per trial and table. */
export const participantsTableId = (trialId: number) => `participants.${trialId}`;
export const olderParticipantsTableId = (trialId: number) => `participants-page.${trialId}`;
