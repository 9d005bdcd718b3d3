import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { LIMITS } from '@trialpulse/shared';
import { STORAGE_KEYS, writeStoredJson } from '@/components/data-table';
import { renderWithProviders } from '@/testing/render-app';
import { SLEEP_STUDY, sleepStudyParticipant } from '@/testing/study-fixtures';
import { DataPageFrame } from './data-page-frame';

/** The `width` the page's style sheets give `element`, per `@media (min-width: …)` rule. */
function mediaWidths(element: HTMLElement): Record<string, string> {
  const classes = [...element.classList].map((name) => `.${name}`);
  const widths: Record<string, string> = {};
  for (const sheet of [...document.styleSheets]) {
    for (const rule of [...sheet.cssRules]) {
      if (!(rule instanceof CSSMediaRule) || !/min-width/.test(rule.conditionText)) continue;
      for (const inner of [...rule.cssRules]) {
        if (inner instanceof CSSStyleRule && classes.includes(inner.selectorText)) {
          if (inner.style.width) widths[rule.conditionText.replace(/\s/g, '')] = inner.style.width;
        }
      }
    }
  }
  return widths;
}

describe('DataPageFrame', () => {
  it(`gives the query sidebar the width of device-data §9 (${LIMITS.sidebarWidth})`, () => {
    writeStoredJson('local', STORAGE_KEYS.currentParticipant, sleepStudyParticipant(5, 'SLP-005'));
    writeStoredJson('local', STORAGE_KEYS.currentTrial, SLEEP_STUDY);
    renderWithProviders(
      <DataPageFrame title="Fitbit data" testId="frame" sidebar={() => <div>form</div>}>
        {() => <div>main</div>}
      </DataPageFrame>,
    );
    expect(screen.getByText('Fitbit data: SLP-005')).toBeTruthy();
    expect(LIMITS.sidebarWidth).toBe(320);
    // Side by side from the md breakpoint up; stacked full width on a phone.
    expect(mediaWidths(screen.getByTestId('data-page-sidebar'))).toEqual({
      '(min-width:0px)': '100%',
      '(min-width:900px)': '320px',
    });
  });
});
