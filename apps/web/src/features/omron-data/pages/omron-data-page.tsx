import { useState } from 'react';
import { DataPageFrame } from '@/components/participant-data';
import { OmronQueryForm } from '../components/omron-query-form';
import { OmronResults } from '../components/omron-results';
import { defaultOmronForm, toOmronQuery, type OmronFormValues } from '../utils/omron-form';

/**
 * /OmronParticipantDataPage (device-data §2): the query form in the left sidebar, the
 * charts and the table of the query in the main area. It opens with the default query
 * (blood pressure, 7 days back, all results).
 */
export function OmronDataPage() {
  const [initial] = useState(defaultOmronForm);
  const [submitted, setSubmitted] = useState<OmronFormValues>(initial);
  return (
    <DataPageFrame
      title="Omron data"
      testId="omron-data-page"
      sidebar={() => <OmronQueryForm initial={initial} onSubmit={setSubmitted} busy={false} />}
    >
      {(participant) => (
        <OmronResults
          participantId={participant.id}
          participantCode={participant.participant_code}
          query={toOmronQuery(submitted)}
        />
      )}
    </DataPageFrame>
  );
}
