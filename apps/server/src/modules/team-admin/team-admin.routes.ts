import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BRANDS, rowIdSchema, teamInputSchema, teamRecordSchema } from '@trialpulse/shared';
import {
  TEAM_ADMIN_MESSAGES,
  type TeamAdminActor,
  type TeamAdminService,
} from './team-admin.service';

type Options = { service: TeamAdminService };

const deviceCatalogEntrySchema = z.object({
  id: z.number().int(),
  manufacturer: z.enum(BRANDS),
  device_type: z.string().nullable(),
  device_name: z.string(),
});

const NOT_IN_SPEC =
  'Not in the access spec (it is silent on team administration); Sys_Admin only. See docs/decisions/0010-team-administration.md.';

/**
 * Team administration for system administrators: every field of the team record, allowed
 * brands and supported devices. The command line (`npm run admin`) uses the same service.
 */
export const teamAdminRoutes: FastifyPluginAsyncZod<Options> = async (app, { service }) => {
  const sysAdminOnly = app.requireStaff({ action: 'team.administer' });
  const actor = (request: { auth: { userId: number } | null; id: string }): TeamAdminActor => ({
    userId: request.auth!.userId,
    requestId: request.id,
    via: 'api',
  });
  const teamIdParams = z.object({
    teamId: rowIdSchema(TEAM_ADMIN_MESSAGES.notFound),
  });
  const tags = ['team administration'];

  app.get(
    '/api/admin/teams',
    {
      schema: {
        tags,
        summary: 'Every team with its full record',
        description: NOT_IN_SPEC,
        response: { 200: z.array(teamRecordSchema) },
      },
      preHandler: sysAdminOnly,
    },
    async () => service.listTeams(),
  );

  app.get(
    '/api/admin/teams/:teamId',
    {
      schema: {
        tags,
        summary: "One team's full record",
        description: NOT_IN_SPEC,
        params: teamIdParams,
        response: { 200: teamRecordSchema },
      },
      preHandler: sysAdminOnly,
    },
    async (request) => service.getTeam(request.params.teamId),
  );

  app.post(
    '/api/admin/teams',
    {
      schema: {
        tags,
        summary: 'Create a team with its allowed brands and supported devices',
        description: `${NOT_IN_SPEC} 409 when the name is taken (case-insensitive).`,
        body: teamInputSchema,
        response: { 200: z.object({ team_id: z.number().int() }) },
      },
      preHandler: sysAdminOnly,
    },
    async (request) => service.createTeam(actor(request), request.body),
  );

  app.put(
    '/api/admin/teams/:teamId',
    {
      schema: {
        tags,
        summary: "Replace a team's record, allowed brands and supported devices",
        description: `${NOT_IN_SPEC} Every field is replaced (omitted fields take the schema defaults or null); brands and devices left out are switched off, never deleted. 409 when the name is taken.`,
        params: teamIdParams,
        body: teamInputSchema,
        response: { 200: z.object({ message: z.string() }) },
      },
      preHandler: sysAdminOnly,
    },
    async (request) => service.updateTeam(actor(request), request.params.teamId, request.body),
  );

  app.get(
    '/api/admin/deviceCatalog',
    {
      schema: {
        tags,
        summary: 'The global device catalog (for choosing supported devices)',
        description: NOT_IN_SPEC,
        response: { 200: z.array(deviceCatalogEntrySchema) },
      },
      preHandler: sysAdminOnly,
    },
    async () => service.deviceCatalog(),
  );
};
