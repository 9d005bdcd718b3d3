import { METRICS_MESSAGES } from '@trialpulse/shared';
import { AppError } from '../../lib/errors';
import type { AuthContext } from '../auth/session-context';
import type { MetricsRepository } from './metrics.repository';

const MAX_DB_ID = 2_147_483_647;

/**
 * The metrics module's one team-boundary check, kept in one place so it can move to the
 * shared access module. Route guards already allow only Sys_Admin (device settings) or
 * Sys_Admin and Admin (data storage). A Sys_Admin may work on any existing team; an Admin
 * only on the selected team. Anything else answers 404, as if the team did not exist.
 */
export function createMetricsAccess(repository: MetricsRepository) {
  const notFound = () => AppError.notFound(METRICS_MESSAGES.teamNotFound);
  return {
    async team(auth: AuthContext, teamId: number) {
      if (teamId > MAX_DB_ID) throw notFound();
      if (auth.role !== 'Sys_Admin' && auth.teamId !== teamId) throw notFound();
      const team = await repository.findTeam(teamId);
      if (!team) throw notFound();
      return team;
    },
  };
}

export type MetricsAccess = ReturnType<typeof createMetricsAccess>;
