import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';
import { defineConfig } from 'vitest/config';

const apiTarget = process.env.API_PROXY_TARGET ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    react(),
    // Brotli and gzip copies of every text asset over 1 KB, written once at build time; the
    // server sends them by Accept-Encoding (plugins/web-app: preCompressed).
    compression({
      algorithms: ['brotliCompress', defineAlgorithm('gzip', { level: 9 })],
      threshold: 1024,
    }),
  ],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: false },
      '/fhir': { target: apiTarget, changeOrigin: false },
    },
  },
  preview: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: false },
      '/fhir': { target: apiTarget, changeOrigin: false },
    },
  },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
  },
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/testing/setup-tests.ts'],
    restoreMocks: true,
    // One module graph and jsdom window per worker instead of one per file: loading React,
    // MUI and the app's modules again for each of ~150 files was half the project's CPU
    // (decision 0230). setup-tests.ts resets what a test can leave behind.
    isolate: false,
    unstubGlobals: true,
    // jsdom + MUI tables are slow on a loaded 2-core CI machine; these are budgets against
    // hanging, not performance checks (speed is measured by bench/, never by tests). With a
    // second CI run beside this one, the team form's test took 131 s (13.6 s alone): decision 0274.
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
