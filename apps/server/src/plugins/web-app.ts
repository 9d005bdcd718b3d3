import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { AppError } from '../lib/errors';

/**
 * Serves the built single-page app: hashed assets cached for a year as immutable and sent
 * pre-compressed, index.html never cached (compressed on the fly, it is small), and every non-API GET falls back to index.html so the client router decides
 * (including its own 404 page).
 */
export async function webAppPlugin(app: FastifyInstance, options: { distDir: string }) {
  const indexFile = path.join(options.distDir, 'index.html');
  if (!fs.existsSync(indexFile)) {
    app.log.warn({ distDir: options.distDir }, 'web build not found; serving the API only');
    return;
  }
  await app.register(fastifyStatic, {
    root: options.distDir,
    wildcard: false,
    index: false,
    // The build writes .br and .gz beside each asset (vite.config): sent as they are, by
    // the browser's Accept-Encoding, with no compression work per request.
    preCompressed: true,
    setHeaders: (reply, filePath) => {
      reply.header(
        'cache-control',
        filePath.includes(`${path.sep}assets${path.sep}`)
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      );
    },
  });
  const indexHtml = fs.readFileSync(indexFile);
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    // The API and the FHIR base (issue 31) answer a missing route as such, never the SPA.
    if (/^\/(api|fhir)(\/|\?|$)/.test(request.url)) {
      throw AppError.routeNotFound(request);
    }
    return reply
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(indexHtml);
  });
}
