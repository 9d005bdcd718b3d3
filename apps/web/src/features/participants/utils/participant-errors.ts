import {
  PARTICIPANT_MESSAGES,
  codeChangeFailedMessage,
  participantValidationErrorMessage,
} from '@trialpulse/shared';
import { isApiError, userMessage, type ApiError } from '@/lib/api-client';

/**
 * Access spec §8 texts for failed participant calls. The server's own text is shown only
 * where the spec quotes it ("{server message}") and only when marked displayable. The
 * spec's "Database Error: {errno} - {code}" is never produced: the server sends no
 * database details (decision 0014), so there is nothing of the kind to show.
 */

/** Reasons the participants API puts on its 409s. */
const REASONS = {
  codeTaken: 'PARTICIPANT_CODE_TAKEN',
  emailTaken: 'PARTICIPANT_EMAIL_TAKEN',
  maxReached: 'MAX_PARTICIPANTS_REACHED',
} as const;

/** The older server's wording of a code clash (spec §8 "Participant code suffix already in use"). */
const SUFFIX_IN_USE = 'Participant code suffix already in use';

/** A failed POST /trialParticipants. */
export function addParticipantErrorMessage(error: unknown): string {
  if (!isApiError(error)) return PARTICIPANT_MESSAGES.addFailed;
  if (error.isNetworkError) return PARTICIPANT_MESSAGES.network;
  if (isEmailTaken(error)) return PARTICIPANT_MESSAGES.emailTaken;
  if (is(error, REASONS.maxReached, PARTICIPANT_MESSAGES.maxParticipantsReached))
    return PARTICIPANT_MESSAGES.maxParticipantsReached;
  if (isCodeTaken(error)) return PARTICIPANT_MESSAGES.codeTaken;
  if (error.status >= 500) return PARTICIPANT_MESSAGES.server;
  if (error.status === 400) {
    const shown = userMessage(error, '');
    return shown ? participantValidationErrorMessage(shown) : PARTICIPANT_MESSAGES.validation;
  }
  return PARTICIPANT_MESSAGES.addFailed;
}

/** A failed PUT /participant (the first step of an edit). */
export function editParticipantErrorMessage(error: unknown): string {
  if (isApiError(error) && isEmailTaken(error)) return PARTICIPANT_MESSAGES.emailTaken;
  return PARTICIPANT_MESSAGES.editFailed;
}

/** A failed PATCH …/code after a successful PUT: the participant is updated, the code is not. */
export function codeChangeErrorMessage(error: unknown): string {
  if (!isApiError(error)) return PARTICIPANT_MESSAGES.updatedButCodeChangeFailed;
  if (isCodeTaken(error)) return PARTICIPANT_MESSAGES.codeTaken;
  if (error.status === 404) return PARTICIPANT_MESSAGES.codeChangeNotFound;
  if (error.status === 400) return PARTICIPANT_MESSAGES.codeChangeInvalidSuffix;
  const shown = userMessage(error, '');
  return shown ? codeChangeFailedMessage(shown) : PARTICIPANT_MESSAGES.updatedButCodeChangeFailed;
}

function is(error: ApiError, reason: string, message: string): boolean {
  return error.reason === reason || error.body?.message === message;
}

function isEmailTaken(error: ApiError): boolean {
  return is(error, REASONS.emailTaken, PARTICIPANT_MESSAGES.emailTaken);
}

/** Spec §8: "HTTP 409 or Participant code suffix already in use". */
function isCodeTaken(error: ApiError): boolean {
  return (
    error.status === 409 ||
    error.reason === REASONS.codeTaken ||
    (error.body?.message ?? '').includes(SUFFIX_IN_USE)
  );
}
