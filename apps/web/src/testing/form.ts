import { fireEvent, screen } from '@testing-library/react';

/** Types `value` into the field labelled `label` (exact accessible label). */
export function fill(label: string, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

export function submit(buttonName: string) {
  fireEvent.click(screen.getByRole('button', { name: buttonName }));
}

/** The messages shown under invalid fields (MUI helper texts marked as errors). */
export function fieldErrors(): string[] {
  return Array.from(document.querySelectorAll('.MuiFormHelperText-root.Mui-error'))
    .map((element) => element.textContent?.trim() ?? '')
    .filter(Boolean);
}

/** Calls that change something (not reads, not the session timers' token refresh). */
export function writes<T extends { method: string; url: string }>(calls: T[]): T[] {
  return calls.filter((call) => call.method !== 'GET' && call.url !== '/api/auth/refreshToken');
}
