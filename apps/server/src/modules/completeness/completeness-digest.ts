import type { CompletenessRow, CompletenessThresholds } from '@trialpulse/shared';
import type { Clock } from '../../lib/clock';
import { BRAND_COMPLETENESS } from '../../providers';
import type { MailService } from '../mail/mail.service';
import type { CompletenessRepository, DigestRecipient } from './completeness.repository';
import type { RowsFor } from './completeness.service';
import { dayRange, isoDay } from './day-states';

/**
 * What a participant can be reported for; words only, never a measured value. The sync-health
 * kinds are the grid's warnings; the data kinds are each brand's completeness alert
 * (`BRAND_COMPLETENESS` in the provider registry).
 */
const HEALTH_ALERTS = [
  { kind: 'stopped_syncing', words: 'stopped syncing' },
  { kind: 'needs_reconsent', words: 'needs re-consent' },
  { kind: 'battery_empty', words: 'battery empty' },
] as const;
export const ALERT_KINDS: readonly string[] = [
  ...HEALTH_ALERTS.map((alert) => alert.kind),
  ...BRAND_COMPLETENESS.map((rule) => rule.alert.kind),
];
export type AlertKind = string;
const ALERT_WORDS = new Map<AlertKind, string>([
  ...HEALTH_ALERTS.map((alert) => [alert.kind, alert.words] as const),
  ...BRAND_COMPLETENESS.map((rule) => [rule.alert.kind, rule.alert.words] as const),
]);

export const DIGEST_TEMPLATE = 'completeness-digest';
export const DIGEST_SUBJECT = 'TrialPulse: participants who crossed a data completeness threshold';

/** The participant's alert kinds on the grid's single day (yesterday). */
export function alertKindsOf(
  row: CompletenessRow,
  thresholds: CompletenessThresholds,
): AlertKind[] {
  const kinds: AlertKind[] = [];
  if (row.warnings.includes('no_recent_sync')) kinds.push('stopped_syncing');
  if (row.warnings.includes('needs_reconsent')) kinds.push('needs_reconsent');
  if (row.warnings.includes('battery_empty')) kinds.push('battery_empty');
  const state = row.states[0];
  if (state === 'partial' || state === 'missing') {
    const brands = new Set(row.connections.map((connection) => connection.brand));
    const measures = {
      wearMinutes: row.wearMinutes[0] ?? 0,
      cgmUsagePercent: row.cgmUsagePercent[0] ?? 0,
      bpReadings: row.bpReadings[0] ?? 0,
      weightReadings: row.weightReadings[0] ?? 0,
    };
    for (const rule of BRAND_COMPLETENESS) {
      if (rule.alert.applies && !rule.alert.applies(thresholds)) continue;
      const check = rule.day(measures, thresholds);
      if ((brands.has(rule.brand) || check.hasData) && !check.passes) kinds.push(rule.alert.kind);
    }
  }
  return kinds;
}

/**
 * The daily alert digest (decision 0052). For every trial someone opted in to, evaluates
 * each participant on their own last complete local day (decision 0180: at the run, in
 * their time zone) and their sync health now, and reports the
 * alert kinds that are new since the previous run (a participant who stays below is
 * reported once). Each opted-in user who may still see the trial gets at most one mail per
 * day, covering all their trials, with participant codes, alert words and links only —
 * never a measured value. The mails go into the outbox in the transaction that claims the
 * day, so a retried or concurrent run of the same day sends nothing twice.
 */
export function createCompletenessDigest(deps: {
  repository: CompletenessRepository;
  rowsFor: RowsFor;
  mail: Pick<MailService, 'enqueue'>;
  publicUrl: string;
  clock: Clock;
}) {
  const { repository, mail, clock } = deps;

  return {
    /** Runs the digest of `day` (default today, UTC). Returns mails queued and participants reported. */
    async run(
      day: string = isoDay(clock.now()),
    ): Promise<{ mails: number; reported: number; skipped: boolean }> {
      const evaluated = dayRange(day, 2)[0]!;
      // A past day's run judges the days complete at its noon (UTC); today's, those complete now.
      const now = clock.now();
      const at = day === isoDay(now) ? now : new Date(`${day}T12:00:00Z`);
      const recipients = await repository.digestRecipients(clock.now());
      const trialIds = [...new Set(recipients.map((recipient) => recipient.trialId))];
      const [participants, thresholds] = await Promise.all([
        repository.participantsOfTrials(trialIds),
        repository.thresholdsOfTrials(trialIds),
      ]);
      const previous = await repository.alertStates(
        participants.map((participant) => participant.id),
      );

      const current = new Map<number, { teamId: number; kinds: AlertKind[] }>();
      const newByTrial = new Map<
        number,
        { participantId: number; code: string; kinds: AlertKind[] }[]
      >();
      for (const trialId of trialIds) {
        const ofTrial = participants.filter((participant) => participant.trialId === trialId);
        if (ofTrial.length === 0) continue;
        const trialThresholds = thresholds.get(trialId)!;
        const rows = await deps.rowsFor(
          ofTrial[0]!.teamId,
          ofTrial,
          { lastCompleteDayAt: at },
          trialThresholds,
        );
        const reported: { participantId: number; code: string; kinds: AlertKind[] }[] = [];
        for (const [index, row] of rows.entries()) {
          const kinds = alertKindsOf(row, trialThresholds);
          current.set(row.participantId, { teamId: ofTrial[index]!.teamId, kinds });
          const before = new Set(previous.get(row.participantId) ?? []);
          const fresh = kinds.filter((kind) => !before.has(kind));
          if (fresh.length > 0)
            reported.push({
              participantId: row.participantId,
              code: row.participantCode,
              kinds: fresh,
            });
        }
        if (reported.length > 0) newByTrial.set(trialId, reported);
      }

      const byUser = new Map<number, DigestRecipient[]>();
      for (const recipient of recipients) {
        if (!newByTrial.has(recipient.trialId)) continue;
        byUser.set(recipient.userId, [...(byUser.get(recipient.userId) ?? []), recipient]);
      }
      const mails = [...byUser.values()].map((trials) => ({
        to: trials[0]!.email,
        subject: DIGEST_SUBJECT,
        text: digestText(evaluated, trials, newByTrial, deps.publicUrl),
        template: DIGEST_TEMPLATE,
      }));

      const claimed = await repository.transaction(async (tx) => {
        if (!(await repository.claimDigestRun(tx, day, mails.length))) return false;
        for (const [participantId, state] of current)
          await repository.saveAlertState(tx, participantId, state.teamId, state.kinds);
        for (const message of mails) await mail.enqueue(tx, message);
        return true;
      });
      const reported = [...newByTrial.values()].reduce((sum, list) => sum + list.length, 0);
      return claimed
        ? { mails: mails.length, reported, skipped: false }
        : { mails: 0, reported: 0, skipped: true };
    },
  };
}

export type CompletenessDigest = ReturnType<typeof createCompletenessDigest>;

function digestText(
  day: string,
  trials: readonly DigestRecipient[],
  newByTrial: ReadonlyMap<number, { participantId: number; code: string; kinds: AlertKind[] }[]>,
  publicUrl: string,
): string {
  const lines = [
    `Participants who crossed a data completeness threshold on their last full day (each in their own time zone; ${day} in UTC):`,
    '',
  ];
  for (const trial of trials) {
    const page = `${publicUrl}/TrialCompleteness?trialId=${trial.trialId}`;
    lines.push(`Trial #${trial.trialNumber}: ${page}`);
    for (const entry of newByTrial.get(trial.trialId) ?? []) {
      lines.push(
        `  ${entry.code}: ${entry.kinds.map((kind) => ALERT_WORDS.get(kind) ?? kind).join(', ')}`,
      );
      lines.push(`    ${page}&participantId=${entry.participantId}`);
    }
    lines.push('');
  }
  lines.push(
    'This email names participant codes only. Open the links to see their data in TrialPulse.',
    "You get it because you opted in on the trial's Data completeness page; switch it off there.",
  );
  return lines.join('\n');
}
