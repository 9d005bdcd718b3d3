import {
  DEVICE_BRANDS,
  PARTICIPANT_MESSAGES,
  type AuthorisedDeviceEntry,
  type ConsentEmailRequest,
  type DeviceBrandName,
  type DeviceConnection,
  type DeviceStatusResponse,
  type IsAuthResponse,
  type PortalEnrolment,
  type StaffAuthorizeRequest,
} from '@trialpulse/shared';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { Meta } from '../../lib/request-meta';
import type { AccessService } from '../access/access.service';
import type { AuthContext } from '../auth/session-context';
import { presentConnection, type DeviceConnectionsService } from './device-connections.service';
import type { DeviceLinkingService } from './device-linking.service';
import type { DeviceStatusService } from './device-status.service';
import type { DevicesRepository } from './devices.repository';

const participantNotFound = () => AppError.notFound(PARTICIPANT_MESSAGES.notFound);

/**
 * What the device routes call: every staff call first resolves the participant through the
 * access module (selected team, Active, trial visibility: 404 otherwise), then hands
 * over to linking or the token lifecycle. The portal resolves a participant account's own
 * enrolments by its verified email.
 */
export function createDevicesService(deps: {
  repository: DevicesRepository;
  access: Pick<AccessService, 'requireTeam' | 'requireParticipant' | 'visibleParticipantIds'>;
  linking: DeviceLinkingService;
  connections: DeviceConnectionsService;
  status: Pick<DeviceStatusService, 'statusOf'>;
  clock: Clock;
}) {
  const { repository, access, linking, connections, status } = deps;

  /** The participant's connection for each brand the team allows. */
  async function connectionsOf(participantId: number): Promise<DeviceConnection[]> {
    const participant = await repository.findParticipant(repository.db, participantId);
    if (!participant) throw participantNotFound();
    const [allowed, rows] = await Promise.all([
      repository.allowedBrands(participant.teamId),
      repository.connectionsOfParticipant(participant.teamId, participantId),
    ]);
    return DEVICE_BRANDS.filter((brand) => allowed.includes(brand)).map((brand) =>
      presentConnection(
        rows
          .filter((row) => row.brand === brand)
          .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0],
        {
          participantId,
          participantCode: participant.participantCode,
          trialId: participant.trialId,
          trialNumber: participant.trialNumber,
          brand,
        },
      ),
    );
  }

  /** The caller's own enrolment with this id, or 404. */
  async function ownEnrolment(auth: AuthContext, participantId: number) {
    const account = await repository.accountEmail(auth.userId);
    if (!account?.verified) throw participantNotFound();
    const participant = await repository.findParticipant(repository.db, participantId);
    if (!participant || participant.email?.toLowerCase() !== account.email.toLowerCase())
      throw participantNotFound();
    return participant;
  }

  return {
    linking,

    async sendConsentEmail(auth: AuthContext, input: ConsentEmailRequest, meta: Meta) {
      const ref = await access.requireParticipant(auth, input.participantId, 'device.connect');
      return linking.sendConsentEmail(ref.id, input.brand, auth.userId, meta);
    },

    async authorizeAsStaff(auth: AuthContext, input: StaffAuthorizeRequest, meta: Meta) {
      const ref = await access.requireParticipant(auth, input.participantId, 'device.connect');
      return linking.authorizeDirectly(ref.id, input.brand, 'staff', auth.userId, meta);
    },

    async tokenAction(
      auth: AuthContext,
      participantId: number,
      brand: DeviceBrandName,
      action: 'refresh' | 'revoke',
      meta: Meta,
      requestedAt: Date = deps.clock.now(),
    ): Promise<{ code: number; message: string }> {
      const ref = await access.requireParticipant(auth, participantId, 'device.connect');
      const actor = { userId: auth.userId };
      return action === 'refresh'
        ? connections.refresh(ref.teamId, ref.id, brand, actor, meta, requestedAt)
        : connections.revoke(ref.teamId, ref.id, brand, actor, meta);
    },

    async isAuth(
      auth: AuthContext,
      participantId: number,
      brand: DeviceBrandName,
    ): Promise<IsAuthResponse> {
      const ref = await access.requireParticipant(auth, participantId, 'device.connect');
      return connections.isAuth(ref.teamId, ref.id, brand);
    },

    async deviceList(
      auth: AuthContext,
      participantId: number,
      brand: DeviceBrandName,
      meta: Meta,
    ): Promise<AuthorisedDeviceEntry[]> {
      const ref = await access.requireParticipant(auth, participantId, 'device.connect');
      return connections.devices(ref.teamId, ref.id, brand, { userId: auth.userId }, meta);
    },

    /**
     * The batched status call of the trial table's visible page (decision 0041): ids the
     * caller may not see, or that do not exist, are left out of the answer.
     */
    async deviceStatus(
      auth: AuthContext,
      participantIds: readonly number[],
      meta: Meta,
    ): Promise<DeviceStatusResponse> {
      const visible = await access.visibleParticipantIds(auth, participantIds, 'device.connect');
      return status.statusOf(visible.teamId, visible.participantIds, { userId: auth.userId }, meta);
    },

    async participantConnections(auth: AuthContext, participantId: number) {
      const ref = await access.requireParticipant(auth, participantId, 'device.connect');
      return { connections: await connectionsOf(ref.id) };
    },

    async teamConnections(auth: AuthContext, brand: DeviceBrandName) {
      const teamId = access.requireTeam(auth, 'deviceToken.manage');
      return { connections: await connections.connectionsOfTeam(teamId, brand) };
    },

    /** Sync health of these participants' connections; callers check access first (completeness). */
    healthOfParticipants(teamId: number, participantIds: readonly number[]) {
      return connections.healthOfParticipants(teamId, participantIds);
    },

    /** Deleting a participant: revoke their grants at the providers first. */
    async revokeBeforeDelete(teamId: number, participantId: number, meta: Meta) {
      await connections.revokeAllOfParticipant(teamId, participantId, { userId: null }, meta);
    },

    async portalEnrolments(auth: AuthContext): Promise<{ enrolments: PortalEnrolment[] }> {
      const account = await repository.accountEmail(auth.userId);
      if (!account?.verified) return { enrolments: [] };
      const records = await repository.participantsWithEmail(account.email.toLowerCase());
      const enrolments: PortalEnrolment[] = [];
      for (const record of records) {
        if (!(await repository.teamIsActive(record.teamId))) continue;
        enrolments.push({
          participantId: record.id,
          participantCode: record.participantCode,
          trialName: record.trialName,
          teamName: record.teamName,
          connections: await connectionsOf(record.id),
        });
      }
      return { enrolments };
    },

    async portalAuthorize(
      auth: AuthContext,
      input: { participantId: number; brand: DeviceBrandName },
      meta: Meta,
    ) {
      const participant = await ownEnrolment(auth, input.participantId);
      return linking.authorizeDirectly(participant.id, input.brand, 'portal', auth.userId, meta);
    },

    async portalRevoke(
      auth: AuthContext,
      input: { participantId: number; brand: DeviceBrandName },
      meta: Meta,
    ) {
      const participant = await ownEnrolment(auth, input.participantId);
      return connections.revoke(
        participant.teamId,
        participant.id,
        input.brand,
        { userId: auth.userId },
        meta,
      );
    },
  };
}

export type DevicesService = ReturnType<typeof createDevicesService>;
