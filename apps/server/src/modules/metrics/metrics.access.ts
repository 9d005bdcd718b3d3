import { METRICS_MESSAGES, can, type Action } from '@trialpulse/shared';
import { isDbId } from '../../lib/db-ids';
import { AppError } from '../../lib/errors';
import type { AccessService } from '../access/access.service';
import type { AuthContext } from '../auth/session-context';
import type { MetricsRepository } from './metrics.repository';

/**
 * The metrics module's team check, on the access module. Whoever administers teams
 * (`team.administer`: Sys_Admin) works on any existing team; everyone else on the selected
 * team only (`access.requireOwnTeam`: another team answers 404 "Team not found.", an
 * inactive selected team 403 TEAM_INACTIVE). The role must allow `action` (403).
 */
export function createMetricsAccess(deps: {
  repository: MetricsRepository;
  access: Pick<AccessService, 'requireOwnTeam'>;
}) {
  const notFound = () => AppError.notFound(METRICS_MESSAGES.teamNotFound);
  return {
    async team(auth: AuthContext, teamId: number, action: Action) {
      if (!can(auth.role, action)) throw AppError.forbidden();
      if (!isDbId(teamId)) throw notFound();
      if (!can(auth.role, 'team.administer'))
        deps.access.requireOwnTeam(auth, teamId, action, notFound);
      const team = await deps.repository.findTeam(teamId);
      if (!team) throw notFound();
      return team;
    },
  };
}

export type MetricsAccess = ReturnType<typeof createMetricsAccess>;
