import { useState, type ReactNode } from 'react';
import { DataPageFrame } from '@/components/participant-data';
import { OmronQueryForm } from '../components/omron-query-form';
import { OmronResults } from '../components/omron-results';
import { defaultOmronForm, toOmronQuery, type OmronFormValues } from '../utils/omron-form';

/**
 * Wraps a view that asks for a participant's Omron data; the route passes the devices
 * feature's `WhenLinked`, so a participant who never linked Omron gets the "not linked"
 * state instead of the call the server refuses with 409 (issue 30).
 */
export type OmronWhenLinked = (participantId: number, view: ReactNode) => ReactNode;

const showAlways: OmronWhenLinked = (_participantId, view) => view;

/**
 * /OmronParticipantDataPage (device-data §2): the query form in the left sidebar, the
 * charts and the table of the query in the main area. It opens with the default query
 * (blood pressure, 7 days back, all results).
 */
export function OmronDataPage({ whenLinked = showAlways }: { whenLinked?: OmronWhenLinked }) {
  const [initial] = useState(defaultOmronForm);
  const [submitted, setSubmitted] = useState<OmronFormValues>(initial);
  return (
    <DataPageFrame
      title="Omron data"
      testId="omron-data-page"
      sidebar={() => <OmronQueryForm initial={initial} onSubmit={setSubmitted} busy={false} />}
    >
      {(participant) =>
        whenLinked(
          participant.id,
          <OmronResults
            participantId={participant.id}
            participantCode={participant.participant_code}
            query={toOmronQuery(submitted)}
          />,
        )
      }
    </DataPageFrame>
  );
}
