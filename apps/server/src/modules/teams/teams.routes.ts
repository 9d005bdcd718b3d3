import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  rowIdSchema,
  selectTeamInputSchema,
  sessionUserSchema,
  teamOptionSchema,
} from '@trialpulse/shared';
import { AppError } from '../../lib/errors';
import { requestMeta } from '../../lib/request-meta';
import { TEAM_SELECTED_MESSAGE, type TeamsService } from './teams.service';

type Options = { service: TeamsService };

/**
 * Team selector calls (access spec §7 /userTeamsData, /selectTeam). A signed-in staff
 * member without a role in the selected team may still list and switch teams. The
 * Sys_Admin team list (`GET /api/team`) lives in the signup module.
 */
export const teamsRoutes: FastifyPluginAsyncZod<Options> = async (app, { service }) => {
  const signedIn = app.requireStaff({ allowMissingRole: true });

  app.get(
    '/api/userTeamsData/:userId',
    {
      schema: {
        tags: ['teams'],
        summary: "The caller's teams with the role in each (only the caller's own user id)",
        params: z.object({ userId: rowIdSchema() }),
        response: { 200: z.array(teamOptionSchema) },
      },
      preHandler: signedIn,
    },
    async (request) => service.userTeams(request.auth!, request.params.userId),
  );

  app.post(
    '/api/selectTeam',
    {
      schema: {
        tags: ['teams'],
        summary: "Switch the session's team; the role comes from the team-user mapping",
        description:
          '403 NOT_A_MEMBER without a mapping. teamName and role in the body are ignored. Answers the re-read session user.',
        body: selectTeamInputSchema,
        response: { 200: z.object({ message: z.string(), user: sessionUserSchema }) },
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      await service.selectTeam(request.auth!, request.body, requestMeta(request));
      // Re-read the session so the answer carries the new team, role and team status.
      request.auth = null;
      const auth = await app.loadAuth(request);
      if (!auth) throw AppError.unauthenticated();
      reply.header('cache-control', 'no-store');
      return { message: TEAM_SELECTED_MESSAGE, user: auth.user };
    },
  );
};
