import type { ComponentType, ReactNode } from 'react';
import Stack from '@mui/material/Stack';
import { CompletenessStrip, CompletenessStripsProvider } from './completeness-strip';

type Slot<P, T> = {
  Provider: ComponentType<{ participants: readonly P[]; trial: T; children: ReactNode }>;
  Cell: ComponentType<{ participant: P }>;
};

/**
 * The trial page's Device Status column with the compact 14-day strip under each row's
 * status: the strips of the rows the table hands to the column's provider come in one call.
 * Typed structurally, so this feature does not import the participants or devices feature.
 */
export function withCompletenessStrip<P extends { id: number }, T extends { trialId: number }>(
  column: Slot<P, T>,
): Slot<P, T> {
  const { Provider: StatusProvider, Cell: StatusCell } = column;
  return {
    Provider: function StatusAndStripsProvider({ participants, trial, children }) {
      return (
        <StatusProvider participants={participants} trial={trial}>
          <CompletenessStripsProvider
            trialId={trial.trialId}
            participantIds={participants.map((participant) => participant.id)}
          >
            {children}
          </CompletenessStripsProvider>
        </StatusProvider>
      );
    },
    Cell: function StatusAndStripCell({ participant }) {
      return (
        <Stack spacing={0.5}>
          <StatusCell participant={participant} />
          <CompletenessStrip participantId={participant.id} />
        </Stack>
      );
    },
  };
}
