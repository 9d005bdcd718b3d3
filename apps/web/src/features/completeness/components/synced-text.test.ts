import { describe, expect, it } from 'vitest';
import { syncedText } from './completeness-grid';

describe('syncedText', () => {
  it('says today, yesterday and whole days, and never synced', () => {
    expect(syncedText(null)).toBe('never synced');
    expect(syncedText(0)).toBe('synced today');
    expect(syncedText(1)).toBe('synced yesterday');
    expect(syncedText(4)).toBe('synced 4 days ago');
  });
});
