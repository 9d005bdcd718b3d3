import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config/env';
import { humanCheckRoutes } from './human-check.routes';
import { createHumanCheckService } from './human-check.service';

export type HumanCheck = {
  /**
   * Resolves when `token` (the `recaptchaResponse` field) proves a human for `action`
   * (one of HUMAN_CHECK_ACTIONS); otherwise throws AppError 400 with HUMAN_CHECK_MESSAGE
   * and reason HUMAN_CHECK_FAILED. An accepted ALTCHA payload is spent.
   */
  assertHuman(token: string | undefined, request: FastifyRequest, action: string): Promise<void>;
};

declare module 'fastify' {
  interface FastifyInstance {
    humanCheck: HumanCheck;
  }
}

/**
 * Decorates `app.humanCheck` and serves the human-check calls: GET /api/humanCheck/config,
 * GET /api/humanCheck/challenge and POST /api/recaptchaVer3Verify.
 */
export const humanCheckPlugin = fp(
  async (app: FastifyInstance, options: { config: Config }) => {
    const service = createHumanCheckService({ config: options.config, logger: app.log });
    app.decorate('humanCheck', {
      assertHuman: (token, request, action) => service.assertHuman(token, { ip: request.ip, action }),
    } satisfies HumanCheck);
    await app.register(humanCheckRoutes, { service });
  },
  { name: 'human-check' },
);
