import { beforeEach } from 'vitest';
import { reportWatchedPages } from './page-trouble';

// Setup file of the e2e project: a failing browser test prints which test failed, why (the
// first line of its error), then what its pages showed and where their screenshots are.
beforeEach(({ task, onTestFailed }) => {
  onTestFailed(({ task: failed }) => {
    const names: string[] = [];
    for (let suite = failed.suite; suite; suite = suite.suite)
      if (suite.name) names.unshift(suite.name);
    const title = [failed.file?.name, ...names, failed.name].filter(Boolean).join(' > ');
    const reason = failed.result?.errors?.[0]?.message?.split('\n')[0] ?? 'unknown error';
    return reportWatchedPages(task.name, `✗ browser test failed: ${title}\n  why: ${reason}`);
  });
});
