import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addTrialUserInputSchema,
  createTrialInputSchema,
  deleteTrialInputSchema,
  deleteTrialUserInputSchema,
  teamUserOptionSchema,
  trialIdSchema,
  trialListQuerySchema,
  trialSchema,
  listAnswerSchema,
  trialUserSchema,
  updateTrialInputSchema,
} from '@trialpulse/shared';
import { presentedAnswer } from '../../lib/paging';
import { requestMeta } from '../../lib/request-meta';
import type { AuthContext } from '../auth/session-context';
import type { TrialUsersService } from './trial-users.service';
import type { TrialsService } from './trials.service';

type Options = { trials: TrialsService; trialUsers: TrialUsersService };

const messageSchema = z.object({ message: z.string() });
const trialIdParams = z.object({ trialId: trialIdSchema });
const TEAM_INACTIVE_NOTE =
  "403 TEAM_INACTIVE when the selected team is not Active; another team's trial answers 404.";

/**
 * Trials and trial users of the selected team (access spec §7 /userTrials, /trialUsers,
 * /teamUsers). Roles per spec §6: list every staff role (User and Viewer see their own
 * trials), edit Sys_Admin/Admin/User, add and delete and trial users Sys_Admin/Admin.
 */
export const trialsRoutes: FastifyPluginAsyncZod<Options> = async (app, { trials, trialUsers }) => {
  const caller = (request: { auth: AuthContext | null }) => request.auth!;

  app.get(
    '/api/userTrials',
    {
      schema: {
        tags: ['trials'],
        summary: "The selected team's trials, newest first; paged, sorted and filtered on request",
        description: `Admin and Sys_Admin: every trial of the team; User and Viewer: trials they are trial users of. With \`pageIndex\`/\`pageSize\` the answer is \`{rows, total}\` (decision 0040); without, the whole list. ${TEAM_INACTIVE_NOTE}`,
        querystring: trialListQuerySchema,
        response: { 200: listAnswerSchema(trialSchema) },
      },
      ...presentedAnswer,
      preHandler: app.requireStaff({ action: 'trial.view' }),
    },
    async (request) => trials.list(caller(request), request.query),
  );

  app.post(
    '/api/userTrials',
    {
      schema: {
        tags: ['trials'],
        summary: 'Add a trial (Sys_Admin, Admin); the caller becomes its owner',
        description: `409 when the team's max_trials is reached or the Trial Number exists in the team. ${TEAM_INACTIVE_NOTE}`,
        body: createTrialInputSchema,
        response: { 200: z.object({ trialId: z.number().int(), message: z.string() }) },
      },
      preHandler: app.requireStaff({ action: 'trial.create' }),
    },
    async (request) => trials.create(caller(request), request.body, requestMeta(request)),
  );

  app.put(
    '/api/userTrials',
    {
      schema: {
        tags: ['trials'],
        summary: 'Edit a trial (Sys_Admin, Admin; User on trials they are trial users of)',
        description: TEAM_INACTIVE_NOTE,
        body: updateTrialInputSchema,
        response: { 200: messageSchema },
      },
      preHandler: app.requireStaff({ action: 'trial.update' }),
    },
    async (request) => trials.update(caller(request), request.body, requestMeta(request)),
  );

  app.delete(
    '/api/userTrials',
    {
      schema: {
        tags: ['trials'],
        summary: 'Delete a trial with its trial users (Sys_Admin, Admin)',
        description: `409 TRIAL_HAS_PARTICIPANTS while it has participants, unless cascade is true (decision 0009). ${TEAM_INACTIVE_NOTE}`,
        body: deleteTrialInputSchema,
        response: { 200: messageSchema },
      },
      preHandler: app.requireStaff({ action: 'trial.delete' }),
    },
    async (request) => trials.remove(caller(request), request.body, requestMeta(request)),
  );

  app.get(
    '/api/trialUsers/:trialId',
    {
      schema: {
        tags: ['trial users'],
        summary: "A trial's users, the owner flagged (Sys_Admin, Admin)",
        description: TEAM_INACTIVE_NOTE,
        params: trialIdParams,
        response: { 200: z.array(trialUserSchema) },
      },
      preHandler: app.requireStaff({ action: 'trialUsers.manage' }),
    },
    async (request) => trialUsers.list(caller(request), request.params.trialId),
  );

  app.get(
    '/api/teamUsers/:trialId',
    {
      schema: {
        tags: ['trial users'],
        summary: 'Staff of the team who are not users of the trial yet (Sys_Admin, Admin)',
        description: TEAM_INACTIVE_NOTE,
        params: trialIdParams,
        response: { 200: z.array(teamUserOptionSchema) },
      },
      preHandler: app.requireStaff({ action: 'trialUsers.manage' }),
    },
    async (request) => trialUsers.addable(caller(request), request.params.trialId),
  );

  app.post(
    '/api/trialUsers',
    {
      schema: {
        tags: ['trial users'],
        summary: 'Add a member of the team to a trial (Sys_Admin, Admin)',
        description: `400 when the email is not a staff member of the team, 409 when already a trial user. ${TEAM_INACTIVE_NOTE}`,
        body: addTrialUserInputSchema,
        response: {
          200: z.object({
            message: z.string(),
            data: z.object({ userId: z.number().int(), userEmail: z.string() }),
          }),
        },
      },
      preHandler: app.requireStaff({ action: 'trialUsers.manage' }),
    },
    async (request) => trialUsers.add(caller(request), request.body, requestMeta(request)),
  );

  app.delete(
    '/api/trialUsers',
    {
      schema: {
        tags: ['trial users'],
        summary: 'Remove a user from a trial (Sys_Admin, Admin); never the owner',
        description: `409 for the trial owner, 404 when the user is not a user of the trial. ${TEAM_INACTIVE_NOTE}`,
        body: deleteTrialUserInputSchema,
        response: { 200: messageSchema },
      },
      preHandler: app.requireStaff({ action: 'trialUsers.manage' }),
    },
    async (request) => trialUsers.remove(caller(request), request.body, requestMeta(request)),
  );
};
