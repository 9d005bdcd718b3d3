import type { CompareResource } from '../multi/compare';

/** Messages of /FitbitParticipantDataForm: device-data §5 texts (decision 0069). */
export const DATA_FORM_MESSAGES = {
  selectResource: 'Please select a resource',
  selectStart: 'Please select a start date',
  selectEnd: 'Please select an end date',
  future: 'Start date cannot be in the future.',
  order: 'Start date must be on or before end date.',
  tooLong: 'Date range cannot exceed 1 year.',
} as const;

export type DataForm = { resource: CompareResource | ''; start: string; end: string };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The first failing rule, or null; the request is not sent on failure (§5). */
export function dataFormError(form: DataForm, today: string): string | null {
  if (!form.resource) return DATA_FORM_MESSAGES.selectResource;
  if (!DATE.test(form.start)) return DATA_FORM_MESSAGES.selectStart;
  if (!DATE.test(form.end)) return DATA_FORM_MESSAGES.selectEnd;
  if (form.start > today || form.end > today) return DATA_FORM_MESSAGES.future;
  if (form.start > form.end) return DATA_FORM_MESSAGES.order;
  if (Date.parse(form.end) - Date.parse(form.start) > 365 * 86_400_000)
    return DATA_FORM_MESSAGES.tooLong;
  return null;
}

export const rangePath = (form: { resource: CompareResource; start: string; end: string }) =>
  `activities/${form.resource}/date/${form.start}/${form.end}.json`;
