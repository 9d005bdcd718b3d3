import type { ReactNode } from 'react';
import { OmronDataPage } from '@/features/omron-data/pages/omron-data-page';
import { OmronOverview, OmronOverviewPage } from '@/features/omron-data/pages/omron-overview-page';
import { OmronParticipantsDataPage } from '@/features/omron-data/pages/omron-participants-data-page';
import { CgmReportSection, CgmSummary } from '@/features/dexcom-data/components/cgm-summary';
import { BloodPressureReport } from '@/features/omron-data/components/blood-pressure-report';
import { WeeklySummaryReport } from '@/features/fitbit-data/data-page/components/weekly-summary-report';
import { ParticipantReportPage } from '@/features/participant-data/pages/participant-report-page';
import { CgmTile } from '@/features/dexcom-data/components/cgm-tile';
import { WhenLinked } from '@/features/devices/components/when-linked';
import { ParticipantDataPage } from '@/features/participant-data/pages/participant-data-page';
import { ParticipantOverviewPage } from '@/features/participant-data/pages/participant-overview-page';
import { ParticipantsDataPage } from '@/features/participant-data/pages/participants-data-page';
import { RawDeviceDataPage } from '@/features/participant-data/pages/raw-device-data-page';
import { FitbitDataPage } from '@/features/fitbit-data/data-page/pages/fitbit-data-page';
import { StoredReadingsTable } from '@/features/participant-data/components/stored-readings-table';
import { FitbitOneDayPage } from '@/features/fitbit-data/one-day/one-day-page';
import { FitbitParticipantsDataPage } from '@/features/fitbit-data/multi/fitbit-participants-data-page';
import { FitbitOverviewPage } from '@/features/fitbit-data/overview/fitbit-overview-page';
import { FitbitDataFormPage } from '@/features/fitbit-data/data-form/fitbit-data-form-page';
import { FitbitRawPage } from '@/features/fitbit-data/raw/fitbit-raw-page';

/**
 * The device data routes (issue 18), loaded together on the first data page. Features never
 * import each other, so the pages that show parts of several are composed here: the
 * Dexcom CGM summary on /ParticipantDataPage, the Omron and CGM tiles on /ParticipantOverview
 * (shown only for a brand the participant linked: devices' WhenLinked).
 */
/** The Omron pages ask for Omron data only when the participant linked Omron (issue 30). */
const whenOmronLinked = (participantId: number, view: ReactNode) => (
  <WhenLinked participantId={participantId} brand="Omron">
    {view}
  </WhenLinked>
);
export function OmronDataRoute() {
  return <OmronDataPage whenLinked={whenOmronLinked} />;
}
export function OmronOverviewRoute() {
  return <OmronOverviewPage whenLinked={whenOmronLinked} />;
}
export function OmronParticipantsRoute() {
  return <OmronParticipantsDataPage whenLinked={whenOmronLinked} />;
}
export const ParticipantsDataRoute = ParticipantsDataPage;
export const FitbitDataRoute = FitbitDataPage;
export const FitbitOneDayRoute = FitbitOneDayPage;
export const FitbitParticipantsRoute = FitbitParticipantsDataPage;
export const FitbitOverviewRoute = FitbitOverviewPage;
export const FitbitDataFormRoute = FitbitDataFormPage;

/** /FitbitParticipantDataRaw: the Fitbit raw view with the stored-readings table (provenance). */
export function FitbitRawRoute() {
  return (
    <FitbitRawPage
      storedReadings={(participant) => (
        <StoredReadingsTable
          participantId={participant.id}
          participantCode={participant.participant_code}
          brand="Fitbit"
          provenance
        />
      )}
    />
  );
}

export function ParticipantDataRoute() {
  return <ParticipantDataPage cgmSummary={(id) => <CgmSummary participantId={id} />} />;
}

export function ParticipantOverviewRoute() {
  return (
    <ParticipantOverviewPage
      omronTile={(id) => (
        <WhenLinked participantId={id} brand="Omron">
          <OmronOverview participantId={id} />
        </WhenLinked>
      )}
      cgmTile={(id) => (
        <WhenLinked participantId={id} brand="Dexcom">
          <CgmTile participantId={id} />
        </WhenLinked>
      )}
    />
  );
}

/** /ParticipantReport: the printable report, each brand's part from its feature (decision 0165). */
export function ParticipantReportRoute() {
  return (
    <ParticipantReportPage
      cgm={(id, period) => <CgmReportSection participantId={id} period={period} />}
      fitbit={(id) => <WeeklySummaryReport participantId={id} />}
      omron={(id, period) => <BloodPressureReport participantId={id} period={period} />}
      whenLinked={(id, brand, section) => (
        <WhenLinked participantId={id} brand={brand} fallback={null}>
          {section}
        </WhenLinked>
      )}
    />
  );
}

export function OmronRawRoute() {
  return <RawDeviceDataPage brand="Omron" />;
}

export function DexcomRawRoute() {
  return <RawDeviceDataPage brand="Dexcom" />;
}
