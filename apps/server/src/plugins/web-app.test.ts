import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffUser, createTeam, signIn } from '../test/fixtures';
import { createTestApp, type TestApp } from '../test/test-app';

/**
 * Compression and caching of what the server sends: the web build's pre-compressed assets
 * (immutable for a year, index.html never cached) and API answers over 1 KB.
 */
describe('compressed answers and cached assets', () => {
  let ctx: TestApp;
  let distDir: string;
  // Text that compresses well, over the 1 KB threshold; each encoding's file differs so the
  // test can see which one was sent.
  const script = `export const rows = [${Array.from({ length: 400 }, (_, i) => `"row ${i}"`).join(',')}];\n`;
  const assetPath = '/assets/login-page-AbC123xy.js';

  beforeAll(async () => {
    distDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-web-dist-'));
    fs.mkdirSync(path.join(distDir, 'assets'));
    fs.writeFileSync(
      path.join(distDir, 'index.html'),
      `<!doctype html><html><body><div id="root"></div>${'<!-- pad -->'.repeat(200)}</body></html>`,
    );
    const asset = path.join(distDir, assetPath);
    fs.writeFileSync(asset, script);
    fs.writeFileSync(`${asset}.br`, zlib.brotliCompressSync(script));
    fs.writeFileSync(`${asset}.gz`, zlib.gzipSync(script, { level: 9 }));
    ctx = await createTestApp({ env: { SERVE_WEB: 'true', WEB_DIST_DIR: distDir } });
  });
  afterAll(async () => {
    await ctx?.close();
    fs.rmSync(distDir, { recursive: true, force: true });
  });

  it('sends the build’s brotli file of a hashed asset, cached for a year as immutable', async () => {
    const response = await ctx.app.inject({
      url: assetPath,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(response.rawPayload.equals(fs.readFileSync(path.join(distDir, `${assetPath}.br`)))).toBe(
      true,
    );
    expect(zlib.brotliDecompressSync(response.rawPayload).toString()).toBe(script);
  });

  it('sends the gzip file to a browser without brotli, and the plain file to one without either', async () => {
    const gzip = await ctx.app.inject({ url: assetPath, headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.rawPayload.equals(fs.readFileSync(path.join(distDir, `${assetPath}.gz`)))).toBe(
      true,
    );
    expect(gzip.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const plain = await ctx.app.inject({
      url: assetPath,
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
  });

  it('never caches index.html, and compresses it', async () => {
    for (const url of ['/', '/LoginPage', '/TrialPage?trialId=1']) {
      const response = await ctx.app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(zlib.gunzipSync(response.rawPayload).toString()).toContain('<div id="root">');
    }
  });

  it('answers an unknown API path with the missing-route 404, not index.html', async () => {
    const response = await ctx.app.inject({ url: '/api/no-such-thing?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({
      message: 'Route GET /api/no-such-thing not found.',
      reason: 'ROUTE_NOT_FOUND',
      location: '/api/no-such-thing',
    });
  });

  it('answers an unknown FHIR path with an OperationOutcome 404, not index.html', async () => {
    const response = await ctx.app.inject({ url: '/fhir/Patient/1?x=1' });
    expect([response.statusCode, response.headers['content-type']]).toEqual([
      404,
      'application/fhir+json; charset=utf-8',
    ]);
    expect(response.json()).toEqual({
      resourceType: 'OperationOutcome',
      issue: [
        {
          severity: 'error',
          code: 'not-found',
          diagnostics: 'Route GET /fhir/Patient/1 not found.',
        },
      ],
    });
  });

  it('compresses API answers over 1 KB and leaves small ones alone', async () => {
    const large = await ctx.app.inject({
      url: '/api/docs/json',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(large.statusCode).toBe(200);
    expect(large.headers['content-encoding']).toBe('br');
    const document = JSON.parse(zlib.brotliDecompressSync(large.rawPayload).toString());
    expect(document.info.title).toBe('TrialPulse API');
    expect(large.rawPayload.length).toBeLessThan(JSON.stringify(document).length / 3);

    const small = await ctx.app.inject({
      url: '/api/appVersion',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(small.statusCode).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toHaveProperty('version');
  });

  it('sends a list page brotli-compressed at quality 2 (or gzip), decoding to the plain answer', async () => {
    const db = ctx.database.db;
    const team = await createTeam(db, { maxTrials: 100 });
    const admin = await createStaffUser(db, { role: 'Admin', teamId: team.id });
    await db.execute(sql`
      INSERT INTO trials (team_id, trial_number, trial_name, trial_notes, trial_code, owner_user_id)
      SELECT ${team.id}, 'ZIP-' || n, 'Compressed trial ' || n, 'Notes of trial ' || n, 'Z' || n, ${admin.id}
      FROM generate_series(1, 12) AS n`);
    const client = await signIn(ctx.app, db, admin);
    const page = (encoding: string) =>
      ctx.app.inject({
        url: '/api/userTrials?pageIndex=0&pageSize=10',
        headers: { cookie: client.jar.header(), 'accept-encoding': encoding },
      });

    const plain = await page('identity');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json().rows).toHaveLength(10);
    expect(plain.rawPayload.length).toBeGreaterThan(1024);

    const brotli = await page('gzip, deflate, br');
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(brotli.rawPayload).toString()).toBe(plain.body);
    // Quality 2 exactly (decision 0265): brotli is deterministic for a quality and input.
    expect(
      brotli.rawPayload.equals(
        zlib.brotliCompressSync(plain.rawPayload, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 2 },
        }),
      ),
    ).toBe(true);

    const gzip = await page('gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.rawPayload).toString()).toBe(plain.body);
  });
});
