import type { FastifyRequest } from 'fastify';
import type { HumanCheckService } from './human-check.service';

/** What routes use: the human check of a request. Built once in services.ts. */
export type HumanCheck = {
  /**
   * Resolves when `token` (the `recaptchaResponse` field) proves a human for `action`
   * (one of HUMAN_CHECK_ACTIONS); otherwise throws AppError 400 with HUMAN_CHECK_MESSAGE
   * and reason HUMAN_CHECK_FAILED. An accepted ALTCHA payload is spent.
   */
  assertHuman(token: string | undefined, request: FastifyRequest, action: string): Promise<void>;
};

/** The human check of a request, on the service (the routes in human-check.routes.ts serve its challenges). */
export function createHumanCheck(service: HumanCheckService): HumanCheck {
  return {
    assertHuman: (token, request, action) => service.assertHuman(token, { ip: request.ip, action }),
  };
}
