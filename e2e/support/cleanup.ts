import { afterAll } from 'vitest';
import { removeStoppedDataDirs } from './server';

// Setup file of the e2e project: its afterAll is registered before the test file's, so it
// runs after them (hooks run as a stack) — every server of the file has stopped by then.
afterAll(() => removeStoppedDataDirs());
