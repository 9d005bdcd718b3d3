export { DataPageFrame, DataPageLink, useDataPageParticipant } from './data-page-frame';
export { dataErrorSeverity } from './data-error-severity';
export { ReturnToTrialBar } from './return-to-trial-bar';
export { DATA_STATE_MESSAGES, DataStateNotice } from './data-state-notice';
