import { HUMAN_CHECK_MESSAGE, humanCheckTokenSchema } from '@trialpulse/shared';
import type { Config } from '../../config/env';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { JobLogger } from '../../jobs/types';
import { createAltchaVerifier, type ReplayStore } from './altcha-verifier';
import { createRecaptchaVerifier } from './recaptcha-verifier';

export type { HumanCheckVerifier } from './human-check.verifier';

export type HumanCheckProvider = 'altcha' | 'recaptcha';

export const HUMAN_CHECK_FAILED = 'HUMAN_CHECK_FAILED';

/**
 * The action names the forms pass to reCAPTCHA (`grecaptcha.execute(siteKey, {action})`);
 * the server requires the same name for the call it protects. reCAPTCHA allows letters,
 * digits, `_` and `/`.
 */
export const HUMAN_CHECK_ACTIONS = {
  login: 'login',
  forgotPassword: 'forgot_password',
  signup: 'signup',
  contact: 'contact',
  /** POST /api/recaptchaVer3Verify, which the web calls before a password change. */
  changePassword: 'change_password',
} as const;

export type HumanCheckService = {
  provider: HumanCheckProvider;
  siteKey: string | null;
  /** An ALTCHA challenge (served in both modes: it is the fallback of the reCAPTCHA mode). */
  createChallenge(): Promise<unknown>;
  /**
   * Resolves when the token proves a human for `action`; otherwise throws
   * AppError(400, HUMAN_CHECK_MESSAGE, reason HUMAN_CHECK_FAILED). A missing, malformed,
   * failed, expired or replayed token fails; so does a literal "fallback" token
   * (docs/decisions/0007-human-check-fallback.md).
   */
  assertHuman(token: string | undefined, context: { ip: string; action: string }): Promise<void>;
};

/**
 * reCAPTCHA v3 when both of its keys are configured, the self-hosted ALTCHA check otherwise.
 * In reCAPTCHA mode an ALTCHA payload is accepted too, because the web client switches to
 * ALTCHA when Google's script has not loaded within 8 seconds.
 */
export function createHumanCheckService(deps: {
  config: Pick<
    Config,
    | 'APP_SECRET'
    | 'HUMAN_CHECK_DIFFICULTY'
    | 'RECAPTCHA_SITE_KEY'
    | 'RECAPTCHA_SECRET_KEY'
    | 'RECAPTCHA_VERIFY_URL'
    | 'RECAPTCHA_MIN_SCORE'
  >;
  logger: JobLogger;
  clock?: Clock;
  recaptchaTimeoutMs?: number;
  /** Spent ALTCHA challenges (the database store in the app, shared by every process). */
  replayStore?: ReplayStore;
}): HumanCheckService {
  const { config, logger } = deps;
  const altcha = createAltchaVerifier({
    appSecret: config.APP_SECRET,
    difficulty: config.HUMAN_CHECK_DIFFICULTY,
    clock: deps.clock,
    replayStore: deps.replayStore,
  });
  const recaptchaKeys =
    config.RECAPTCHA_SITE_KEY && config.RECAPTCHA_SECRET_KEY
      ? { siteKey: config.RECAPTCHA_SITE_KEY, secretKey: config.RECAPTCHA_SECRET_KEY }
      : null;
  if (!recaptchaKeys && (config.RECAPTCHA_SITE_KEY || config.RECAPTCHA_SECRET_KEY)) {
    logger.warn({}, 'only one of the reCAPTCHA keys is set; using the self-hosted human check');
  }
  const recaptcha = recaptchaKeys
    ? createRecaptchaVerifier({
        secretKey: recaptchaKeys.secretKey,
        verifyUrl: config.RECAPTCHA_VERIFY_URL,
        minScore: config.RECAPTCHA_MIN_SCORE,
        timeoutMs: deps.recaptchaTimeoutMs,
      })
    : null;

  async function check(token: string, context: { ip: string; action: string }) {
    if (altcha.recognises(token))
      return { verifier: 'altcha', ...(await altcha.verify(token, context)) };
    if (recaptcha) return { verifier: 'recaptcha', ...(await recaptcha.verify(token, context)) };
    return { verifier: 'altcha', ok: false, reason: 'malformed' };
  }

  return {
    provider: recaptcha ? 'recaptcha' : 'altcha',
    siteKey: recaptchaKeys?.siteKey ?? null,
    createChallenge: () => altcha.createChallenge(),

    async assertHuman(token, context) {
      const parsed = humanCheckTokenSchema.safeParse(token);
      const result = parsed.success
        ? await check(parsed.data, context)
        : { verifier: 'none', ok: false, reason: 'missing' };
      if (result.ok) return;
      // Never the token itself: it is a credential until it expires.
      logger.info(
        { action: context.action, verifier: result.verifier, humanCheckFailure: result.reason },
        'human check failed',
      );
      throw new AppError(400, HUMAN_CHECK_MESSAGE, { reason: HUMAN_CHECK_FAILED });
    },
  };
}
