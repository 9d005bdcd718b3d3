import { useEffect, useMemo } from 'react';
import { useLocation } from 'react-router';
import type { z } from 'zod';
import { readStoredJson, writeStoredJson } from './browser-storage';

/**
 * The row a table opened a page for (a trial for /TrialPage and /TrialUsers): taken from
 * the navigation state under `stateKey`, else — after a reload or a bookmark — from local
 * storage under `storageKey`, where the navigation-state row is also remembered. `null`
 * when neither holds a row that passes `schema`.
 */
export function useOpenedRow<T>(
  schema: z.ZodType<T>,
  { stateKey, storageKey }: { stateKey: string; storageKey: string },
): T | null {
  const { state } = useLocation() as { state: unknown };
  const fromState = useMemo(() => {
    const candidate =
      typeof state === 'object' && state !== null
        ? (state as Record<string, unknown>)[stateKey]
        : undefined;
    const parsed = schema.safeParse(candidate);
    return parsed.success ? parsed.data : null;
  }, [schema, state, stateKey]);

  useEffect(() => {
    if (fromState) writeStoredJson('local', storageKey, fromState);
  }, [fromState, storageKey]);

  if (fromState) return fromState;
  const stored = schema.safeParse(readStoredJson('local', storageKey));
  return stored.success ? stored.data : null;
}

/** Remembers the row a table is about to open (see `useOpenedRow`). */
export function rememberOpenedRow(storageKey: string, row: unknown): void {
  writeStoredJson('local', storageKey, row);
}
