import { useSession } from '@/lib/session';

/**
 * Which participant fields the selected team shows (its hidden-field list, access spec §3).
 * The server already leaves hidden fields out of every answer; this only shapes the UI.
 */
export function useVisibleParticipantFields() {
  const { user } = useSession();
  const hidden = user?.hiddenFields ?? [];
  return { showEmail: !hidden.includes('email'), showNotes: !hidden.includes('notes') };
}
