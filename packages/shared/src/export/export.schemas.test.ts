import { describe, expect, it } from 'vitest';
import {
  EXPORT_MESSAGES,
  addYears,
  exportRequestMessages,
  exportZipName,
  formatFileSize,
  safeFileNamePart,
} from './export.schemas';

const valid = {
  trialId: 1,
  deviceId: 2,
  participantIds: [3],
  startDate: '2026-01-10',
  endDate: '2026-02-10',
  metrics: ['steps'],
  fileName: 'Study A',
};
const bounds = { today: '2026-11-24' };

describe('export request rules (§5)', () => {
  it('accepts a valid request and answers the first rule broken, in the spec order', () => {
    expect(exportRequestMessages(valid, bounds)).toEqual([]);
    expect(exportRequestMessages({}, bounds)).toEqual([
      EXPORT_MESSAGES.trialRequired,
      EXPORT_MESSAGES.deviceRequired,
      EXPORT_MESSAGES.participantRequired,
      EXPORT_MESSAGES.datesRequired,
      EXPORT_MESSAGES.metricRequired,
      EXPORT_MESSAGES.fileNameRequired,
    ]);
    expect(exportRequestMessages({ ...valid, startDate: '2026-03-01' }, bounds)[0]).toBe(
      EXPORT_MESSAGES.startAfterEnd,
    );
    expect(
      exportRequestMessages(
        { ...valid, startDate: '2025-11-24', endDate: '2026-11-25' },
        bounds,
      )[0],
    ).toBe(EXPORT_MESSAGES.rangeTooLong);
    expect(
      exportRequestMessages({ ...valid, startDate: '2025-11-24', endDate: '2026-11-24' }, bounds),
    ).toEqual([]);
    expect(exportRequestMessages({ ...valid, startDate: '2025-11-23' }, bounds)).toEqual([
      EXPORT_MESSAGES.startTooEarly,
    ]);
    expect(exportRequestMessages({ ...valid, endDate: '2026-11-25' }, bounds)).toEqual([
      EXPORT_MESSAGES.endInFuture,
    ]);
    expect(exportRequestMessages({ ...valid, fileName: '  ' }, bounds)).toEqual([
      EXPORT_MESSAGES.fileNameRequired,
    ]);
  });

  it('counts a year by calendar (29 February → 28 February)', () => {
    expect(addYears('2024-02-29', 1)).toBe('2025-02-28');
    expect(addYears('2026-11-24', -1)).toBe('2025-11-24');
  });
});

describe('export helpers (§9)', () => {
  it('shows sizes in B, KB or MB with one decimal', () => {
    expect(formatFileSize(512)).toBe('512 B');
    expect(formatFileSize(1536)).toBe('1.5 KB');
    expect(formatFileSize(5 * 1024 * 1024 + 200_000)).toBe('5.2 MB');
    expect(formatFileSize(null)).toBe('');
  });

  it('names files with the product name and only safe characters', () => {
    expect(exportZipName('Sleep study / 30 days')).toBe('TrialPulse-Sleep_study_30_days-Data.zip');
    expect(safeFileNamePart('"; rm -rf /')).toBe('rm_-rf');
    expect(safeFileNamePart('...')).toBe('export');
    // Accented letters keep their letter; other non-ASCII characters become '_'.
    expect(safeFileNamePart('Étude été ✓ Ærø')).toBe('Etude_ete_r');
  });
});
