import { beforeEach } from 'vitest';
import { reportWatchedPages } from './page-trouble';

// Setup file of the e2e project: a failing browser test prints what its pages showed.
beforeEach(({ task, onTestFailed }) => {
  onTestFailed(() => reportWatchedPages(task.name));
});
