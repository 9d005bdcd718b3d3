// The Fitbit brand's presenters (decision 0062), shared by its two upstreams (Google Health and
// the legacy Web API): one family per resource of the Fitbit data call, each answering it from
// stored readings, from Google Health, or from the legacy API, in the Fitbit shapes. The data
// calls reach them through the registry (`providers/index.ts`, `fitbitData`).
export { bodyLogFamily, cardioScoreFamily, spo2Family } from './fitbit-body.translator';
export {
  GOOGLE_SERIES,
  activityIntradayFamily,
  activitySeriesFamily,
} from './fitbit-data.translator';
export { googleApi, type FitbitFamily } from './fitbit-family';
export { heartIntradayFamily, heartSeriesFamily } from './fitbit-heart.translator';
export { activityLogListFamily, foodsLogFamily, foodsSeriesFamily } from './fitbit-logs.translator';
export { sleepFamily, sleepListFamily } from './fitbit-sleep.translator';
