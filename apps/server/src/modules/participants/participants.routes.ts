import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addParticipantInputSchema,
  addParticipantResponseSchema,
  allowedDeviceSchema,
  changeCodeInputSchema,
  changeCodeResponseSchema,
  deleteParticipantInputSchema,
  participantIdSchema,
  participantRawSchema,
  participantSchema,
  participantListQuerySchema,
  listAnswerSchema,
  supportedDeviceSchema,
  trialCodeResponseSchema,
  trialIdSchema,
  updateParticipantInputSchema,
  rowIdSchema,
} from '@trialpulse/shared';
import { presentedAnswer } from '../../lib/paging';
import { requestMeta } from '../../lib/request-meta';
import type { AuthContext } from '../auth/session-context';
import type { ParticipantsService } from './participants.service';

type Options = { participants: ParticipantsService };

const messageSchema = z.object({ message: z.string() });
const trialIdParams = z.object({ trialId: trialIdSchema });
const participantIdParams = z.object({ id: participantIdSchema });
const teamIdParams = z.object({
  teamId: rowIdSchema('Team not found.'),
});
const SCOPE_NOTE =
  '403 TEAM_INACTIVE when the selected team is not Active. A trial or participant of another team, or of a trial a User/Viewer is not a trial user of, answers 404. Fields the team hides (hidden_fields: email, notes) are never sent.';

/**
 * Participants of the selected team's trials (access spec §7 /trialParticipants,
 * /participant, /teamAllowedDevices, /teamSupportedDevices; decision 0014). Roles per
 * spec §6: reads every staff role, writes Sys_Admin/Admin/User, the raw record Sys_Admin.
 */
export const participantsRoutes: FastifyPluginAsyncZod<Options> = async (app, options) => {
  const { participants } = options;
  const caller = (request: { auth: AuthContext | null }) => request.auth!;

  app.get(
    '/api/trialParticipants/:trialId',
    {
      schema: {
        tags: ['participants'],
        summary:
          "A trial's participants, in the order they were added; paged, sorted and filtered on request",
        description: `With \`pageIndex\`/\`pageSize\` the answer is \`{rows, total}\` (decision 0040); without, the whole list. Fields the team hides are neither searched nor sortable (400). ${SCOPE_NOTE}`,
        params: trialIdParams,
        querystring: participantListQuerySchema,
        response: { 200: listAnswerSchema(participantSchema) },
      },
      ...presentedAnswer,
      preHandler: app.requireStaff({ action: 'participant.view' }),
    },
    async (request) => participants.list(caller(request), request.params.trialId, request.query),
  );

  app.get(
    '/api/trialParticipants/:trialId/trialCode',
    {
      schema: {
        tags: ['participants'],
        summary: "The trial's participant-code prefix",
        description: SCOPE_NOTE,
        params: trialIdParams,
        response: { 200: trialCodeResponseSchema },
      },
      preHandler: app.requireStaff({ action: 'participant.view' }),
    },
    async (request) => participants.trialCode(caller(request), request.params.trialId),
  );

  app.post(
    '/api/trialParticipants',
    {
      schema: {
        tags: ['participants'],
        summary: 'Add a participant (Sys_Admin, Admin, User)',
        description: `An empty codeSuffix gets the next free number ("001", "002", …). 409 when the code is taken in the trial, the email is taken in the team, or the team's max_participants is reached. ${SCOPE_NOTE}`,
        body: addParticipantInputSchema,
        response: { 200: addParticipantResponseSchema },
      },
      preHandler: app.requireStaff({ action: 'participant.create' }),
    },
    async (request) => participants.add(caller(request), request.body, requestMeta(request)),
  );

  app.put(
    '/api/participant',
    {
      schema: {
        tags: ['participants'],
        summary: 'Edit email, gender, age and notes (Sys_Admin, Admin, User)',
        description: `Omitted email/age/notes are kept, blank clears them; a hidden field is only replaced by a non-blank value. 409 when the email is taken in the team. ${SCOPE_NOTE}`,
        body: updateParticipantInputSchema,
        response: { 200: messageSchema },
      },
      preHandler: app.requireStaff({ action: 'participant.update' }),
    },
    async (request) => participants.update(caller(request), request.body, requestMeta(request)),
  );

  app.patch(
    '/api/trialParticipants/:trialId/:participantId/code',
    {
      schema: {
        tags: ['participants'],
        summary: "Change a participant's code suffix (Sys_Admin, Admin, User)",
        description: `400 "Code change failed: invalid suffix.", 404 "Code change failed: participant or trial not found.", 409 "Participant code is already taken in this trial." (the old code is kept). ${SCOPE_NOTE}`,
        params: z.object({ trialId: trialIdSchema, participantId: participantIdSchema }),
        body: changeCodeInputSchema,
        response: { 200: changeCodeResponseSchema },
      },
      preHandler: app.requireStaff({ action: 'participant.update' }),
    },
    async (request) =>
      participants.changeCode(
        caller(request),
        request.params.trialId,
        request.params.participantId,
        request.body,
        requestMeta(request),
      ),
  );

  app.delete(
    '/api/participant',
    {
      schema: {
        tags: ['participants'],
        summary:
          'Delete a participant with their device connections and data (Sys_Admin, Admin, User)',
        description: SCOPE_NOTE,
        body: deleteParticipantInputSchema,
        response: { 200: messageSchema },
      },
      preHandler: app.requireStaff({ action: 'participant.delete' }),
    },
    async (request) => participants.remove(caller(request), request.body, requestMeta(request)),
  );

  app.get(
    '/api/participant/:id',
    {
      schema: {
        tags: ['participants'],
        summary: 'One participant',
        description: SCOPE_NOTE,
        params: participantIdParams,
        response: { 200: participantSchema },
      },
      preHandler: app.requireStaff({ action: 'participant.view' }),
    },
    async (request) => participants.get(caller(request), request.params.id),
  );

  app.get(
    '/api/participant/:id/raw',
    {
      schema: {
        tags: ['participants'],
        summary: "A participant's stored record (Sys_Admin)",
        description: `Column names as stored; fields the team hides are left out and listed in hidden_fields. ${SCOPE_NOTE}`,
        params: participantIdParams,
        response: { 200: participantRawSchema },
      },
      preHandler: app.requireStaff({ action: 'participant.viewRaw' }),
    },
    async (request) => participants.raw(caller(request), request.params.id),
  );

  app.get(
    '/api/teamAllowedDevices/:teamId',
    {
      schema: {
        tags: ['participants'],
        summary: "The brands the caller's team allows (its own team only)",
        description: '404 for any team other than the selected one; 403 TEAM_INACTIVE.',
        params: teamIdParams,
        response: { 200: z.array(allowedDeviceSchema) },
      },
      preHandler: app.requireStaff({ action: 'participant.view' }),
    },
    async (request) => participants.allowedDevices(caller(request), request.params.teamId),
  );

  app.get(
    '/api/teamSupportedDevices/:teamId',
    {
      schema: {
        tags: ['participants'],
        summary: "The catalog devices the caller's team supports (its own team only)",
        description: '404 for any team other than the selected one; 403 TEAM_INACTIVE.',
        params: teamIdParams,
        response: { 200: z.array(supportedDeviceSchema) },
      },
      preHandler: app.requireStaff({ action: 'participant.view' }),
    },
    async (request) => participants.supportedDevices(caller(request), request.params.teamId),
  );
};
