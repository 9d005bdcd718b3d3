export { DataPageFrame, DataPageLink, useDataPageParticipant } from './data-page-frame';
export { dataErrorSeverity } from './data-error-severity';
export { ReturnToTrialBar } from './return-to-trial-bar';
