import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { resetCsrfToken } from '@/lib/api-client';

afterEach(() => {
  cleanup();
  resetCsrfToken();
});
