import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { resetCsrfToken } from '@/lib/api-client';

// Lazy pages load on first use; a cold module graph on a busy CI machine takes a while.
configure({ asyncUtilTimeout: 15_000 });

afterEach(() => {
  cleanup();
  resetCsrfToken();
  localStorage.clear();
});
