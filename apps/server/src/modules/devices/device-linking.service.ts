import {
  AUTHORIZATION_STATE_LIFETIME_MINUTES,
  CONSENT_LINK_LIFETIME_HOURS,
  DEVICE_ERROR_REASONS,
  DEVICE_MESSAGES,
  type CallbackResponse,
  type ConsentLinkBrand,
  type DeviceBrandName,
} from '@trialpulse/shared';
import type { AuthorizationOrigin } from '../../db/schema';
import type { DbOrTx } from '../../db/client';
import { recordAudit } from '../../lib/audit';
import type { Clock } from '../../lib/clock';
import type { Meta } from '../../lib/request-meta';
import { decryptSecret, encryptSecret, hashToken, randomToken } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { generateAuthorizationSecrets, type TokenSet } from './core/provider-client';
import { errorTypeOf } from './core/provider-errors';
import { NEW_CONNECTION_UPSTREAM, type ProviderRegistry } from './core/provider-registry';
import { newConnectionPlugin, type ProviderLinking } from '../../providers';
import { providerNotConfigured } from './device-connections.service';
import type { DevicesRepository, LinkableParticipant } from './devices.repository';
import type { MailService } from '../mail/mail.service';

/** A brand's consent page and callback texts: its provider plugin's (access spec §2, device-data spec §8). */
function linkingOf(brand: DeviceBrandName): ProviderLinking {
  const linking = newConnectionPlugin(brand).linking;
  if (!linking) throw new Error(`The ${brand} provider plugin declares no linking.`);
  return linking;
}

/** The consent page an emailed link of the brand opens (only brands linked by email have one). */
function consentPageOf(brand: ConsentLinkBrand): string {
  const page = linkingOf(brand).consentPage;
  if (!page) throw new Error(`The ${brand} provider plugin declares no consent page.`);
  return page;
}

const invalidRequest = () =>
  new AppError(422, DEVICE_MESSAGES.invalidRequest, {
    displayToUser: true,
    reason: DEVICE_ERROR_REASONS.invalidState,
  });
const invalidConsentLink = () =>
  new AppError(400, DEVICE_MESSAGES.consentLinkInvalid, {
    displayToUser: true,
    reason: DEVICE_ERROR_REASONS.invalidConsentLink,
  });
const brandNotAllowed = () =>
  new AppError(400, DEVICE_MESSAGES.brandNotAllowed, {
    displayToUser: true,
    reason: DEVICE_ERROR_REASONS.brandNotAllowed,
  });
const participantNotFound = () => AppError.notFound(DEVICE_MESSAGES.participantNotFound);

export type CallbackInput = {
  authCode?: string | undefined;
  state: string;
  error?: string | undefined;
  /** Whatever participant id the callback page got; must match the started authorisation. */
  participantId?: string | number | undefined;
  /** The participant's email typed on the callback page, where the brand asks it (`emailCheck`). */
  email?: string | undefined;
};

/**
 * Linking a participant's device account: consent links by email, starting the provider
 * authorisation (staff with the participant present, the emailed link, or the
 * participant's own account) and completing it on the callback. The OAuth `state` is a
 * random nonce stored hashed with the participant and a PKCE verifier; the callback must
 * bring it back once, within its lifetime. Tokens are stored encrypted.
 */
export function createDeviceLinkingService(deps: {
  repository: DevicesRepository;
  providers: ProviderRegistry;
  clock: Clock;
  encryptionKey: string;
  publicUrl: string;
  mail: () => Pick<MailService, 'enqueue' | 'deliverPending'>;
  /**
   * Called once a connection is linked (after its transaction commits): the sync module
   * queues its backfill at once (decision 0103). A failure here never fails the link.
   */
  onLinked?: (connectionId: number) => Promise<unknown>;
  log?: (obj: object, msg: string) => void;
}) {
  const { repository, providers, clock, encryptionKey } = deps;

  async function assertBrandAllowed(teamId: number, brand: DeviceBrandName) {
    if (!(await repository.teamIsActive(teamId))) throw participantNotFound();
    if (!(await repository.allowedBrands(teamId)).includes(brand)) throw brandNotAllowed();
  }

  /** Stores a new started authorisation and returns the provider's consent URL. */
  async function startAuthorization(
    tx: DbOrTx,
    participant: LinkableParticipant,
    brand: DeviceBrandName,
    origin: AuthorizationOrigin,
    initiatedByUserId: number | null,
    consentTokenId: number | null,
    meta: Meta,
  ): Promise<string> {
    const upstream = NEW_CONNECTION_UPSTREAM[brand];
    const client = providers.client(upstream);
    if (!client) throw providerNotConfigured();
    const { state, codeVerifier } = generateAuthorizationSecrets();
    const now = clock.now();
    await repository.insertAuthorizationRequest(tx, {
      stateHash: hashToken(state),
      teamId: participant.teamId,
      participantId: participant.id,
      brand,
      upstream,
      codeVerifierEncrypted: client.supportsPkce
        ? encryptSecret(codeVerifier, encryptionKey)
        : null,
      origin,
      initiatedByUserId,
      consentTokenId,
      expiresAt: new Date(now.getTime() + AUTHORIZATION_STATE_LIFETIME_MINUTES * 60_000),
    });
    await recordAudit(tx, {
      action: 'device.authorization.start',
      entityType: 'participant',
      entityId: participant.id,
      actorUserId: initiatedByUserId,
      teamId: participant.teamId,
      requestId: meta.requestId,
      after: { brand, upstream, origin },
    });
    const url = await client.authorizationUrl({
      state,
      ...(client.supportsPkce && { codeVerifier }),
    });
    return url.toString();
  }

  return {
    clientId(brand: DeviceBrandName): string {
      return providers.clientId(NEW_CONNECTION_UPSTREAM[brand]) ?? '';
    },

    /** Emails the participant a consent link (72 h) for a brand. Throws 404, 400. */
    async sendConsentEmail(
      participantId: number,
      brand: ConsentLinkBrand,
      actorUserId: number,
      meta: Meta,
    ): Promise<{ message: string }> {
      const participant = await repository.findParticipant(repository.db, participantId);
      if (!participant) throw participantNotFound();
      await assertBrandAllowed(participant.teamId, brand);
      if (!providers.client(NEW_CONNECTION_UPSTREAM[brand])) throw providerNotConfigured();
      if (!participant.email) {
        throw new AppError(400, DEVICE_MESSAGES.participantHasNoEmail, {
          displayToUser: true,
          reason: DEVICE_ERROR_REASONS.noEmail,
        });
      }
      const token = randomToken();
      const now = clock.now();
      await repository.transaction(async (tx) => {
        const tokenId = await repository.insertConsentToken(tx, {
          tokenHash: hashToken(token),
          teamId: participant.teamId,
          participantId: participant.id,
          brand,
          createdByUserId: actorUserId,
          expiresAt: new Date(now.getTime() + CONSENT_LINK_LIFETIME_HOURS * 3_600_000),
        });
        const link = `${deps.publicUrl}${consentPageOf(brand)}?id=${participant.id}&token=${encodeURIComponent(token)}`;
        await deps.mail().enqueue(tx, {
          to: participant.email!,
          subject: `TrialPulse: please authorise access to your ${brand} data`,
          text: consentMailText(brand, participant.trialName, link),
          template: 'participant-consent',
        });
        await recordAudit(tx, {
          action: 'device.consent_link.sent',
          entityType: 'participant',
          entityId: participant.id,
          actorUserId,
          teamId: participant.teamId,
          requestId: meta.requestId,
          after: {
            brand,
            tokenId,
            expiresAt: new Date(
              now.getTime() + CONSENT_LINK_LIFETIME_HOURS * 3_600_000,
            ).toISOString(),
          },
        });
      });
      void deps.mail().deliverPending();
      return { message: DEVICE_MESSAGES.consentEmailSent };
    },

    /** The consent page's Authorize Access: checks the emailed link, then starts. Throws 400. */
    async authorizeFromConsentLink(
      input: { participantId: number; token: string; brand: ConsentLinkBrand },
      meta: Meta,
    ): Promise<{ authorizeUrl: string }> {
      const row = await repository.findUsableConsentToken(hashToken(input.token), clock.now());
      if (!row || row.participantId !== input.participantId || row.deviceBrand !== input.brand) {
        await recordAudit(repository.db, {
          action: 'device.consent_link.refused',
          entityType: 'participant',
          entityId: input.participantId,
          requestId: meta.requestId,
          after: { brand: input.brand, ip: meta.ip ?? null },
        });
        throw invalidConsentLink();
      }
      const participant = await repository.findParticipant(repository.db, input.participantId);
      if (!participant || participant.teamId !== row.teamId) throw invalidConsentLink();
      await assertBrandAllowed(participant.teamId, input.brand);
      const authorizeUrl = await repository.transaction((tx) =>
        startAuthorization(tx, participant, input.brand, 'consent_link', null, row.id, meta),
      );
      return { authorizeUrl };
    },

    /**
     * Staff (or the participant's own account) start an authorisation for a participant
     * the caller may see (checked by the caller). Throws 400, 503.
     */
    async authorizeDirectly(
      participantId: number,
      brand: DeviceBrandName,
      origin: 'staff' | 'portal',
      actorUserId: number,
      meta: Meta,
    ): Promise<{ authorizeUrl: string }> {
      const participant = await repository.findParticipant(repository.db, participantId);
      if (!participant) throw participantNotFound();
      await assertBrandAllowed(participant.teamId, brand);
      const authorizeUrl = await repository.transaction((tx) =>
        startAuthorization(tx, participant, brand, origin, actorUserId, null, meta),
      );
      return { authorizeUrl };
    },

    /**
     * Completes an authorisation on the callback: the state must be one we issued for this
     * brand, unused and unexpired (else 422); a provider error (Deny) answers 400 with the
     * brand's text; a failed code exchange 502. On success the tokens are stored encrypted.
     */
    async completeCallback(
      brand: DeviceBrandName,
      input: CallbackInput,
      meta: Meta,
    ): Promise<CallbackResponse> {
      const stateHash = hashToken(input.state);
      const pending = await repository.findPendingAuthorization(stateHash, clock.now());
      const participantIdMatches =
        input.participantId === undefined ||
        input.participantId === '' ||
        String(input.participantId) === String(pending?.participantId);
      if (!pending || pending.brand !== brand || !participantIdMatches) {
        await recordAudit(repository.db, {
          action: 'device.authorization.refused',
          entityType: 'participant',
          entityId: pending?.participantId ?? null,
          teamId: pending?.teamId ?? null,
          requestId: meta.requestId,
          after: { brand, reason: 'invalid_state', ip: meta.ip ?? null },
        });
        throw invalidRequest();
      }
      const participant = await repository.findParticipant(repository.db, pending.participantId);
      if (!participant) throw invalidRequest();
      const emailCheck = linkingOf(brand).emailCheck;
      if (emailCheck && !input.error) {
        const typed = input.email?.trim().toLowerCase();
        if (!typed || (participant.email && participant.email.toLowerCase() !== typed)) {
          throw new AppError(400, emailCheck.mismatch, {
            displayToUser: true,
            reason: DEVICE_ERROR_REASONS.emailMismatch,
          });
        }
      }
      // From here on the state is spent, whatever happens next.
      const claimed = await repository.claimAuthorization(repository.db, stateHash, clock.now());
      if (!claimed) throw invalidRequest();
      const texts = linkingOf(brand).callbackTexts;
      const failure = async (reason: string, error: AppError) => {
        await recordAudit(repository.db, {
          action: 'device.authorization.failed',
          entityType: 'participant',
          entityId: participant.id,
          actorUserId: claimed.initiatedByUserId,
          teamId: participant.teamId,
          requestId: meta.requestId,
          after: { brand, upstream: claimed.upstream, reason },
        });
        return error;
      };
      if (input.error || !input.authCode) {
        throw await failure(
          input.error ? `provider_error:${input.error.slice(0, 40)}` : 'no_code',
          new AppError(400, texts.denied, {
            displayToUser: true,
            reason: DEVICE_ERROR_REASONS.denied,
          }),
        );
      }
      const client = providers.client(claimed.upstream);
      if (!client) throw providerNotConfigured();
      let tokens: TokenSet;
      try {
        const verifier = claimed.codeVerifierEncrypted
          ? decryptSecret(claimed.codeVerifierEncrypted, encryptionKey)
          : undefined;
        tokens = await client.exchangeCode(input.authCode, verifier);
      } catch (error) {
        throw await failure(
          errorTypeOf(error),
          new AppError(502, texts.exchangeFailed, {
            displayToUser: true,
            reason: DEVICE_ERROR_REASONS.exchangeFailed,
            cause: error,
          }),
        );
      }
      let providerUserId = tokens.providerUserId ?? null;
      const googleHealth = providers.googleHealth();
      if (claimed.upstream === 'google-health' && googleHealth && !providerUserId) {
        // The Google Health user id comes from the identity call; a Google account without a
        // Health profile still links (its data calls report auth_error until it has one).
        providerUserId = await googleHealth
          .getIdentity(tokens.accessToken)
          .then((identity) => identity.healthUserId)
          .catch(() => null);
      }
      const now = clock.now();
      const linkedId = await repository.transaction(async (tx) => {
        const catalogDeviceId = await repository.catalogDeviceFor(tx, participant.teamId, brand);
        if (catalogDeviceId === undefined) throw brandNotAllowed();
        const connectionId = await repository.saveLinkedConnection(tx, {
          teamId: participant.teamId,
          participantId: participant.id,
          globalDeviceCatalogId: catalogDeviceId,
          upstream: claimed.upstream,
          providerUserId,
          accessTokenEncrypted: encryptSecret(tokens.accessToken, encryptionKey),
          refreshTokenEncrypted: encryptSecret(tokens.refreshToken, encryptionKey),
          tokenExpiresAt: tokens.expiresAt,
          scopes: tokens.scopes,
          now,
        });
        if (claimed.consentTokenId !== null)
          await repository.markConsentTokenUsed(tx, claimed.consentTokenId, now);
        await recordAudit(tx, {
          action: 'device.link',
          entityType: 'participant_device',
          entityId: connectionId,
          actorUserId: claimed.initiatedByUserId,
          teamId: participant.teamId,
          requestId: meta.requestId,
          after: {
            participantId: participant.id,
            brand,
            upstream: claimed.upstream,
            origin: claimed.origin,
            scopes: tokens.scopes,
            expiresAt: tokens.expiresAt.toISOString(),
          },
        });
        return connectionId;
      });
      // The backfill starts now rather than at the next scheduler tick; polling remains the fallback.
      if (deps.onLinked) {
        await deps
          .onLinked(linkedId)
          .catch((error: unknown) =>
            deps.log?.(
              { err: error, connectionId: linkedId },
              'sync: could not queue the backfill of a new connection',
            ),
          );
      }
      return {
        message: DEVICE_MESSAGES.authorized,
        participantId: participant.id,
        trialId: participant.trialId,
        brand,
      };
    },
  };
}

export type DeviceLinkingService = ReturnType<typeof createDeviceLinkingService>;

function consentMailText(brand: ConsentLinkBrand, trialName: string, link: string): string {
  return [
    'Hello,',
    '',
    `The study team of "${trialName}" asks you to let TrialPulse read the data of your ${brand} device for the study.`,
    'Open this link to review and authorise access:',
    '',
    link,
    '',
    `The link works for ${CONSENT_LINK_LIFETIME_HOURS} hours. If you did not expect this message, you can ignore it.`,
    '',
    'TrialPulse',
  ].join('\n');
}
