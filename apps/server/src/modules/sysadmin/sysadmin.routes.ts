import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  SYS_ADMIN_ONLY,
  SYS_ADMIN_TABLES,
  pageQuerySchema,
  pagedSchema,
  sysAdminColumns,
  sysAdminTeamDevicesQuerySchema,
} from '@trialpulse/shared';
import type { SysAdminService } from './sysadmin.service';

type Options = { sysAdmin: SysAdminService };

/**
 * GET /api/sysAdmin*Data (device-data spec §7): the ten read-only lists of the Database
 * Info page, Sys_Admin only. Query: page, pageSize (default 50), sort, order, filter
 * (decision 0031); answer `{data, total, page, pageSize}`.
 */
export const sysAdminRoutes: FastifyPluginAsyncZod<Options> = async (app, options) => {
  const sysAdminOnly = app.requireStaff({ roles: SYS_ADMIN_ONLY });
  for (const table of SYS_ADMIN_TABLES) {
    const narrowsByTeam = table.key === 'teamSupportedDevices';
    const querySchema = narrowsByTeam
      ? pageQuerySchema.extend(sysAdminTeamDevicesQuerySchema.shape)
      : pageQuerySchema;
    app.get(
      `/api${table.path}`,
      {
        schema: {
          tags: ['database info'],
          summary: `${table.title}: one page`,
          description: `Sys_Admin only. Sort columns: ${sysAdminColumns(table.key).join(', ')}.${
            narrowsByTeam ? ' `team_id` narrows the list to one team (Device Metrics Manager).' : ''
          }`,
          querystring: querySchema,
          response: { 200: pagedSchema(table.row) },
        },
        preHandler: sysAdminOnly,
      },
      async (request) => {
        const { team_id: teamId, ...query } = request.query as typeof request.query & {
          team_id?: number;
        };
        // Rows come from SQL aliased to the schema's fields; the response schema checks them.
        return (await options.sysAdmin.page(table.key, query, { teamId })) as never;
      },
    );
  }
};
