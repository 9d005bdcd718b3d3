import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  SYS_ADMIN_TABLES,
  boundedPagedSchema,
  listQuerySchema,
  sysAdminColumns,
  sysAdminTeamDevicesQuerySchema,
} from '@trialpulse/shared';
import type { SysAdminService } from './sysadmin.service';

type Options = { sysAdmin: SysAdminService };

/**
 * GET /api/sysAdmin*Data (device-data spec §7): the ten read-only lists of the Database
 * Info page, Sys_Admin only. Paging, sort and filter as every list (decision 0040:
 * pageIndex, pageSize, sortBy, sortDir, filter); a page answers `{rows, total,
 * totalIsExact}`, counted exactly up to 10,000 rows (decision 0031). Without paging
 * parameters the whole list, as the spec shows.
 */
export const sysAdminRoutes: FastifyPluginAsyncZod<Options> = async (app, options) => {
  const sysAdminOnly = app.requireStaff({ action: 'sysadmin.view' });
  for (const table of SYS_ADMIN_TABLES) {
    const columns = sysAdminColumns(table.key) as [string, ...string[]];
    const narrowsByTeam = table.key === 'teamSupportedDevices';
    app.get(
      `/api${table.path}`,
      {
        schema: {
          tags: ['database info'],
          summary: `${table.title}`,
          description: `Sys_Admin only. Sortable columns: ${columns.join(', ')}.${
            narrowsByTeam ? ' `team_id` narrows the list to one team (Device Metrics Manager).' : ''
          }`,
          querystring: listQuerySchema(columns).and(sysAdminTeamDevicesQuerySchema),
          response: { 200: z.union([z.array(table.row), boundedPagedSchema(table.row)]) },
        },
        preHandler: sysAdminOnly,
      },
      async (request) => {
        const { team_id: teamId, ...query } = request.query;
        const page = await options.sysAdmin.page(table.key, query, {
          teamId: narrowsByTeam ? teamId : undefined,
        });
        // Rows come from SQL aliased to the schema's fields; the response schema checks them.
        return (query.page ? page : page.rows) as never;
      },
    );
  }
};
