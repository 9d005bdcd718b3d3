/**
 * The keys this app keeps in the browser, in one place, and JSON helpers that never throw
 * (storage may be full, disabled or hold another version's data).
 */
export const STORAGE_KEYS = {
  /** Session storage: page, sort and filter of one table. */
  tableState: (tableId: string) => `tp.table.${tableId}`,
  /** Local storage: the column-hiding setting, under a dashboard key (access spec §9). */
  columnVisibility: (tableId: string) => `tp.dashboard.columnVisibility.${tableId}`,
  /** Local storage: the trial last opened from the trials table (access spec §9). */
  currentTrial: 'tp.currentTrial',
  /** Local storage: the participant last opened for /Participant and /ParticipantRaw. */
  currentParticipant: 'tp.currentParticipant',
} as const;

type StorageArea = 'local' | 'session';

/** The parsed JSON under `key`, or `null` when missing or unreadable. */
export function readStoredJson(area: StorageArea, key: string): unknown {
  try {
    const text = storage(area).getItem(key);
    return text === null ? null : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

export function writeStoredJson(area: StorageArea, key: string, value: unknown): void {
  try {
    storage(area).setItem(key, JSON.stringify(value));
  } catch {
    // A full or disabled storage only costs the remembered state.
  }
}

function storage(area: StorageArea): Storage {
  return area === 'local' ? window.localStorage : window.sessionStorage;
}

/**
 * Forgets what one user left in the browser (table filters, opened trial and participant),
 * so the next person signing in on this browser starts clean and sees nothing of theirs.
 * Column visibility is a layout preference and stays.
 */
export function forgetUserBrowserState(): void {
  try {
    for (const key of Object.keys(window.sessionStorage)) {
      if (key.startsWith('tp.table.')) window.sessionStorage.removeItem(key);
    }
    window.localStorage.removeItem(STORAGE_KEYS.currentTrial);
    window.localStorage.removeItem(STORAGE_KEYS.currentParticipant);
  } catch {
    // Storage disabled: nothing was kept.
  }
}
