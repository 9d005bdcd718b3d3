import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { MedplumClient } from '@medplum/core';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client';
import { auditLog } from '../../db/schema';
import { startJobs, type JobLogger, type Jobs } from '../../jobs/boss';
import { createStaffUser, signIn } from '../../test/fixtures';
import { fhirResourceValidator } from '../../test/fhir-validator';
import { createTestApp, type TestApp } from '../../test/test-app';
import { backendClientOfTeam } from '../backend-clients/test-support';
import { exportJobDefinitions, exportStorageFor, sweepExports } from '../export/export.job';
import { EXPORT_RUN, EXPORT_SILENT_MS } from '../export/export.service';
import { readingDevice } from '../sync/reading-device';
import { createParticipants, readingsServiceFor } from '../sync/test-support';
import type { ReadingInput } from '../sync/readings.service';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const T0 = Date.parse('2026-03-02T08:00:00Z');
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const readingsFor = (db: Db) => readingsServiceFor(db);

type Manifest = {
  transactionTime: string;
  request: string;
  requiresAccessToken: boolean;
  output: { type: string; url: string; count: number }[];
  error: { type: string; url: string }[];
};

/**
 * FHIR Bulk Data over real HTTP (issue 31): the app listens on a port, its PUBLIC_URL names
 * that port (status and file URLs are absolute), a real pg-boss worker runs the exports, and
 * bearer tokens come from the real token endpoint (SMART Backend Services). First the
 * protocol exactly as the Bulk Data IG's examples (export.html: kick-off, status polling,
 * manifest, file download, DELETE) with plain fetch; then an independent client used
 * unchanged, @medplum/core's MedplumClient.bulkExport; then the refusals.
 */
describe(`FHIR Bulk Data $export over HTTP (${MODE}, real worker)`, () => {
  let t: TestApp;
  let jobs: Jobs;
  let base: string;
  let teamA: { teamId: number; trialId: number; participantIds: number[] };
  let teamB: { teamId: number; trialId: number; participantIds: number[] };
  let tokenA: string;
  let clientA: string;
  let tokenB: string;
  /** Team A's client allowed only Observations. */
  let tokenObservations: string;
  /** The next run to reach a page waits there while a test holds it (set before the kick-off). */
  let hold: { reached: () => void; release: Promise<void> } | undefined;

  const readingsOf = (teamId: number, participantId: number): ReadingInput[] => [
    ...Array.from({ length: 90 }, (_, minute) => ({
      teamId,
      participantId,
      brand: 'Fitbit' as const,
      upstream: 'google-health' as const,
      metricKey: 'heart_rate',
      recordedAt: new Date(T0 + minute * 60_000),
      utcOffsetMinutes: -300,
      value: 58 + (minute % 40),
      dataSource: 'Charge 6',
    })),
    ...['systolic', 'diastolic'].map((metricKey, k) => ({
      teamId,
      participantId,
      brand: 'Omron' as const,
      upstream: 'omron' as const,
      metricKey,
      recordedAt: new Date(T0 + 3_600_000),
      utcOffsetMinutes: -300,
      value: [128, 84][k]!,
      dataSource: 'HEM-7155T',
    })),
    {
      teamId,
      participantId,
      brand: 'Fitbit' as const,
      upstream: 'google-health' as const,
      metricKey: 'steps',
      recordedAt: new Date(Date.UTC(2026, 2, 2)),
      value: 8042,
    },
  ];
  /** Per participant: 90 heart rates, one blood-pressure panel, one day of steps. */
  const OBSERVATIONS_PER_PARTICIPANT = 92;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { PUBLIC_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    const db = t.database.db;
    teamA = await createParticipants(db, 3);
    teamB = await createParticipants(db, 1);
    const readings = readingsServiceFor(db);
    await readings.store(teamA.participantIds.flatMap((id) => readingsOf(teamA.teamId, id)));
    await readings.store(teamB.participantIds.flatMap((id) => readingsOf(teamB.teamId, id)));
    ({ token: tokenA, clientId: clientA } = await backendClientOfTeam(t, teamA.teamId));
    ({ token: tokenB } = await backendClientOfTeam(t, teamB.teamId));
    ({ token: tokenObservations } = await backendClientOfTeam(t, teamA.teamId, {
      scopes: ['system/Observation.rs'],
    }));
    jobs = await startJobs({
      database: t.database,
      logger: quiet,
      schedule: false,
      pollingIntervalSeconds: 0.5,
      jobs: exportJobDefinitions(t.config, readingsFor, {
        pageSize: 40,
        heartbeatMs: 0,
        bulkResourcesPerFile: 100,
        async afterPage() {
          const held = hold;
          if (!held) return;
          hold = undefined;
          held.reached();
          await held.release;
        },
      }),
    });
  });
  afterAll(async () => {
    await jobs?.stop();
    await t?.close();
  });

  const kickOffUrl = (trialId: number, query = '') =>
    `${base}/fhir/Group/${trialId}/$export${query}`;
  /** The kick-off request of the IG's example: Accept and Prefer headers, the bearer token. */
  const kickOff = (url: string, token = tokenA, headers: Record<string, string> = {}) =>
    fetch(url, {
      headers: {
        accept: 'application/fhir+json',
        prefer: 'respond-async',
        authorization: `Bearer ${token}`,
        ...headers,
      },
    });
  const get = (url: string, token = tokenA, headers: Record<string, string> = {}) =>
    fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers } });
  /** Polls the status URL as a client does until it is no longer 202 (the worker is real). */
  const pollUntilDone = async (statusUrl: string, token = tokenA) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const response = await get(statusUrl, token);
      if (response.status !== 202) return response;
      expect(response.headers.get('x-progress')).toMatch(/^\d+% done$/);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      if (Date.now() > deadline) throw new Error(`${statusUrl} still running`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const holdNextRun = () => {
    let reached!: () => void;
    let release!: () => void;
    const atPage = new Promise<void>((resolve) => (reached = resolve));
    hold = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
    return { atPage, release };
  };
  const jobIdOf = (statusUrl: string) => Number(statusUrl.split('/').at(-1));
  const outcomeOf = async (response: Response) => {
    expect(response.headers.get('content-type')).toBe('application/fhir+json; charset=utf-8');
    const body = (await response.json()) as {
      resourceType: string;
      issue: { code: string; diagnostics: string }[];
    };
    expect(body.resourceType).toBe('OperationOutcome');
    return body.issue[0]!;
  };

  it('GET /fhir/metadata: a valid R4 CapabilityStatement with the Group $export and the SMART token endpoint', async () => {
    const response = await fetch(`${base}/fhir/metadata`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/fhir+json; charset=utf-8');
    const statement = (await response.json()) as Record<string, unknown>;
    const validate = fhirResourceValidator();
    // The published R4 JSON schema's fhirVersion list stops at 4.0.0 (4.0.1 is R4's
    // technical correction, the version the Bulk Data IG names): everything else as served.
    expect(validate({ ...statement, fhirVersion: '4.0.0' }), JSON.stringify(validate.errors)).toBe(
      true,
    );
    expect(statement).toMatchObject({ fhirVersion: '4.0.1', format: ['application/fhir+json'] });
    const rest = (statement.rest as Record<string, unknown>[])[0]!;
    expect(rest.mode).toBe('server');
    const smart = (await (await fetch(`${base}/fhir/.well-known/smart-configuration`)).json()) as {
      token_endpoint: string;
    };
    expect(JSON.stringify(rest.security)).toContain('"code":"SMART-on-FHIR"');
    expect(JSON.stringify(rest.security)).toContain(`"valueUri":"${smart.token_endpoint}"`);
    const group = (rest.resource as { type: string; operation?: unknown[] }[]).find(
      (entry) => entry.type === 'Group',
    );
    expect(group?.operation).toEqual([
      {
        name: 'export',
        definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/group-export',
      },
    ]);
    expect((rest.resource as { type: string }[]).map((entry) => entry.type).sort()).toEqual([
      'Device',
      'Group',
      'Observation',
      'Patient',
    ]);
  });

  it('the protocol as the IG shows it: kick-off 202 + Content-Location, 202 + X-Progress while running, 200 manifest, NDJSON files, DELETE 202, then 404', async () => {
    const url = kickOffUrl(
      teamA.trialId,
      '?_type=Group,Patient,Device,Observation&_outputFormat=application%2Ffhir%2Bndjson',
    );
    // The run is held at its first page so the running status is seen for sure.
    const held = holdNextRun();
    const kicked = await kickOff(url);
    expect(kicked.status).toBe(202);
    const statusUrl = kicked.headers.get('content-location')!;
    expect(statusUrl).toMatch(new RegExp(`^${base}/fhir/bulkstatus/\\d+$`));
    await held.atPage;
    const running = await get(statusUrl);
    expect(running.status).toBe(202);
    expect(running.headers.get('x-progress')).toMatch(/^\d+% done$/);
    expect(running.headers.get('retry-after')).toBe('5');
    expect(await running.text()).toBe('');
    held.release();
    const done = await pollUntilDone(statusUrl);
    expect(done.status).toBe(200);
    expect(done.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Date.parse(done.headers.get('expires')!)).toBeGreaterThan(Date.now());
    const manifest = (await done.json()) as Manifest;
    expect(manifest.request).toBe(url);
    expect(manifest.requiresAccessToken).toBe(true);
    expect(Number.isNaN(Date.parse(manifest.transactionTime))).toBe(false);
    expect(manifest.output.map((file) => file.type)).toEqual([
      'Group',
      'Patient',
      'Device',
      'Observation',
      'Observation',
      'Observation',
    ]);
    const counts = (type: string) =>
      manifest.output.filter((f) => f.type === type).reduce((sum, f) => sum + f.count, 0);
    expect(counts('Observation')).toBe(3 * OBSERVATIONS_PER_PARTICIPANT);
    expect(counts('Patient')).toBe(3);
    expect(manifest.error).toEqual([]);

    const validate = fhirResourceValidator();
    const patients = new Set<string>();
    for (const file of manifest.output) {
      expect(file.url.startsWith(`${base}/fhir/bulkfiles/`)).toBe(true);
      const response = await get(file.url, tokenA, { accept: 'application/fhir+ndjson' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/fhir+ndjson');
      // fetch asks for gzip (and decodes it): NDJSON travels compressed.
      expect(response.headers.get('content-encoding')).toBe('gzip');
      const lines = (await response.text()).trimEnd().split('\n');
      expect(lines).toHaveLength(file.count);
      for (const line of lines) {
        const resource = JSON.parse(line) as Record<string, unknown>;
        expect(resource.resourceType).toBe(file.type);
        expect(validate(resource), JSON.stringify(validate.errors)).toBe(true);
        if (resource.resourceType === 'Patient') patients.add(`Patient/${String(resource.id)}`);
        if (resource.resourceType === 'Observation')
          expect(patients.has((resource.subject as { reference: string }).reference)).toBe(true);
      }
    }
    // Who exported what: the kick-off and every download, with the client, in the audit log.
    const audit = await t.database.db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.entityType, 'export_job'),
          eq(auditLog.entityId, String(jobIdOf(statusUrl))),
        ),
      );
    expect(audit.map((row) => row.action).sort()).toEqual(
      ['export.create', ...manifest.output.map(() => 'export.download')].sort(),
    );
    for (const row of audit) {
      expect(row).toMatchObject({ teamId: teamA.teamId, actorUserId: null });
      expect(row.after).toMatchObject({ backendClientId: clientA });
    }
    expect(
      audit
        .filter((row) => row.action === 'export.download')
        .map((row) => (row.after as { file: string }).file)
        .sort(),
    ).toEqual(manifest.output.map((file) => file.url.split('/').at(-1)).sort());
    // The token is required for the files too (requiresAccessToken).
    expect((await fetch(manifest.output[0]!.url)).status).toBe(401);

    const deleted = await fetch(statusUrl, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tokenA}` },
    });
    expect(deleted.status).toBe(202);
    expect((await outcomeOf(await get(statusUrl))).code).toBe('not-found');
    expect((await get(manifest.output[0]!.url)).status).toBe(404);
  });

  it('DELETE while running cancels: the worker stops, the status URL answers 404, no file is left', async () => {
    const held = holdNextRun();
    const kicked = await kickOff(kickOffUrl(teamA.trialId));
    expect(kicked.status).toBe(202);
    const statusUrl = kicked.headers.get('content-location')!;
    const jobId = jobIdOf(statusUrl);
    await held.atPage;
    const deleted = await fetch(statusUrl, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tokenA}` },
    });
    expect(deleted.status).toBe(202);
    held.release();
    expect((await get(statusUrl)).status).toBe(404);
    const exportsDir = path.join(t.config.DATA_DIR, 'exports');
    // The stopped run removes its work directory (its next heartbeat is refused).
    const deadline = Date.now() + 30_000;
    const leftovers = () =>
      ['files', 'parts'].flatMap((dir) =>
        fs
          .readdirSync(path.join(exportsDir, dir))
          .filter((name) => name.startsWith(`${jobId}-`) || name.startsWith(`${jobId}.`)),
      );
    while (leftovers().length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(leftovers()).toEqual([]);
  });

  it('a kick-off the queue cannot take is accepted (202) and its export runs once the sweep takes it over', async () => {
    // It used to answer 503 and delete the job, but when the database itself was away the
    // delete failed too: the client saw a failure while its export ran a minute later (the
    // fault test). pg-boss's job table out of the way is that fault with the database up.
    await t.database.db.execute(sql`alter table pgboss.job rename to job_unavailable`);
    let kicked: Response;
    try {
      kicked = await kickOff(kickOffUrl(teamA.trialId));
    } finally {
      await t.database.db.execute(sql`alter table pgboss.job_unavailable rename to job`);
    }
    expect(kicked.status).toBe(202);
    const statusUrl = kicked.headers.get('content-location')!;
    const jobId = jobIdOf(statusUrl);
    expect((await get(statusUrl)).status).toBe(202);
    await sweepExports(
      t.database.db,
      exportStorageFor(t.config),
      new Date(Date.now() + EXPORT_SILENT_MS + 1_000),
      async (id) => {
        if (id === jobId) await jobs.boss.send(EXPORT_RUN, { jobId: id });
      },
    );
    const done = await pollUntilDone(statusUrl);
    expect(done.status).toBe(200);
    const manifest = (await done.json()) as { output: { url: string }[] };
    expect(manifest.output.length).toBeGreaterThan(0);
  });

  it('@medplum/core MedplumClient.bulkExport, unchanged, exports the trial and reads every file', async () => {
    const medplum = new MedplumClient({ baseUrl: base, fhirUrlPath: 'fhir', fetch });
    medplum.setAccessToken(tokenA);
    const manifest = (await medplum.bulkExport(`Group/${teamA.trialId}`, undefined, undefined, {
      pollStatusOnAccepted: true,
      pollStatusPeriod: 100,
    })) as Manifest;
    expect(manifest.requiresAccessToken).toBe(true);
    const byType = new Map<string, Record<string, unknown>[]>();
    for (const file of manifest.output) {
      const blob = await medplum.download(file.url);
      const resources = (await blob.text())
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(resources).toHaveLength(file.count);
      byType.set(file.type, [...(byType.get(file.type) ?? []), ...resources]);
    }
    expect(byType.get('Observation')).toHaveLength(3 * OBSERVATIONS_PER_PARTICIPANT);
    expect(byType.get('Group')?.[0]).toMatchObject({ resourceType: 'Group', quantity: 3 });
    // One Device per device the readings came with, named as their Observations name it.
    const devices = new Set(
      readingsOf(teamA.teamId, 0).map((reading) =>
        readingDevice({ ...reading, dataSource: reading.dataSource ?? null, valueJson: null }),
      ),
    );
    expect(
      new Set(byType.get('Device')!.map((d) => (d.deviceName as { name: string }[])[0]!.name)),
    ).toEqual(devices);
    const panels = byType
      .get('Observation')!
      .filter((o) => JSON.stringify(o.code).includes('85354-9'));
    expect(panels).toHaveLength(3);
  });

  it("GET /fhir/Group lists the team's trials as Groups (id trial-<id>), which kick off by that id; another team's trials are not listed", async () => {
    const response = await get(`${base}/fhir/Group`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/fhir+json; charset=utf-8');
    const bundle = (await response.json()) as Record<string, unknown> & {
      entry: { fullUrl: string; resource: Record<string, unknown> }[];
    };
    const validate = fhirResourceValidator();
    expect(validate(bundle), JSON.stringify(validate.errors)).toBe(true);
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'searchset', total: 1 });
    const [group] = bundle.entry;
    expect(group!.resource).toMatchObject({
      resourceType: 'Group',
      id: `trial-${teamA.trialId}`,
      identifier: [{ system: 'urn:trialpulse:trial', value: String(teamA.trialId) }],
    });
    expect(group!.fullUrl).toBe(`${base}/fhir/Group/trial-${teamA.trialId}`);
    // The listed id kicks off as the bare trial id does.
    const kicked = await kickOff(`${group!.fullUrl}/$export?_type=Group`);
    expect(kicked.status).toBe(202);
    const manifest = (await (
      await pollUntilDone(kicked.headers.get('content-location')!)
    ).json()) as Manifest;
    const exported = JSON.parse(
      (await (await get(manifest.output[0]!.url)).text()).trim(),
    ) as Record<string, unknown>;
    expect(exported.id).toBe(group!.resource.id);
    // Team B's client sees only team B's trial; a token without the Group scope gets 403.
    const listB = (await (await get(`${base}/fhir/Group`, tokenB)).json()) as {
      entry: { resource: { id: string } }[];
    };
    expect(listB.entry.map((entry) => entry.resource.id)).toEqual([`trial-${teamB.trialId}`]);
    expect((await get(`${base}/fhir/Group`, tokenObservations)).status).toBe(403);
  });

  it('refuses what the IG says to refuse, as OperationOutcomes: no Prefer, a wrong Accept, _outputFormat, _since, _type', async () => {
    const url = kickOffUrl(teamA.trialId);
    const cases: [string, Response][] = [
      ['no Prefer', await kickOff(url, tokenA, { prefer: '' })],
      ['Accept text/html', await kickOff(url, tokenA, { accept: 'text/html' })],
      ['_outputFormat csv', await kickOff(kickOffUrl(teamA.trialId, '?_outputFormat=text/csv'))],
      ['_since a date', await kickOff(kickOffUrl(teamA.trialId, '?_since=2026-03-01'))],
      ['_since no zone', await kickOff(kickOffUrl(teamA.trialId, '?_since=2026-03-01T00:00:00'))],
      ['_type unknown', await kickOff(kickOffUrl(teamA.trialId, '?_type=Encounter'))],
      [
        '_typeFilter',
        await kickOff(kickOffUrl(teamA.trialId, '?_typeFilter=Observation%3Fcode%3Dx')),
      ],
    ];
    for (const [name, response] of cases) {
      expect([name, response.status]).toEqual([name, 400]);
      expect([name, (await outcomeOf(response)).code]).toEqual([name, 'invalid']);
    }
    // Prefer: handling=lenient: an unsupported parameter is ignored instead.
    const lenient = await kickOff(
      kickOffUrl(teamA.trialId, '?_type=Group&_typeFilter=Observation%3Fcode%3Dx'),
      tokenA,
      { prefer: 'respond-async, handling=lenient' },
    );
    expect(lenient.status).toBe(202);
    // The aliases the IG lists are accepted.
    for (const format of ['application/ndjson', 'ndjson'])
      expect(
        (await kickOff(kickOffUrl(teamA.trialId, `?_type=Group&_outputFormat=${format}`))).status,
      ).toBe(202);
  });

  it("POST kick-off with a FHIR Parameters body (the IG's POST form): its _type and _outputFormat apply", async () => {
    const kicked = await fetch(kickOffUrl(teamA.trialId), {
      method: 'POST',
      headers: {
        accept: 'application/fhir+json',
        prefer: 'respond-async',
        authorization: `Bearer ${tokenA}`,
        'content-type': 'application/fhir+json',
      },
      body: JSON.stringify({
        resourceType: 'Parameters',
        parameter: [
          { name: '_type', valueString: 'Patient' },
          { name: '_outputFormat', valueString: 'application/fhir+ndjson' },
        ],
      }),
    });
    expect(kicked.status).toBe(202);
    const manifest = (await (
      await pollUntilDone(kicked.headers.get('content-location')!)
    ).json()) as Manifest;
    expect(manifest.output.map((file) => [file.type, file.count])).toEqual([['Patient', 3]]);
    // A body that is not a Parameters resource is refused.
    const wrong = await fetch(kickOffUrl(teamA.trialId), {
      method: 'POST',
      headers: {
        accept: 'application/fhir+json',
        prefer: 'respond-async',
        authorization: `Bearer ${tokenA}`,
        'content-type': 'application/fhir+json',
      },
      body: JSON.stringify({ resourceType: 'Patient' }),
    });
    expect(wrong.status).toBe(400);
    expect((await outcomeOf(wrong)).code).toBe('invalid');
  });

  it('a client with 4 exports unfinished gets 429 (Retry-After, OperationOutcome) for a fifth; cancelling frees it', async () => {
    const { token } = await backendClientOfTeam(t, teamA.teamId);
    const held = holdNextRun();
    const statusUrls: string[] = [];
    for (let n = 0; n < 4; n += 1) {
      const kicked = await kickOff(kickOffUrl(teamA.trialId, '?_type=Patient'), token);
      expect(kicked.status).toBe(202);
      statusUrls.push(kicked.headers.get('content-location')!);
    }
    await held.atPage;
    const fifth = await kickOff(kickOffUrl(teamA.trialId, '?_type=Patient'), token);
    expect(fifth.status).toBe(429);
    expect(fifth.headers.get('retry-after')).toBe('60');
    expect((await outcomeOf(fifth)).code).toBe('throttled');
    // Another client of the team is not held back by this one's exports.
    const other = await kickOff(kickOffUrl(teamA.trialId, '?_type=Patient'));
    expect(other.status).toBe(202);
    for (const url of [...statusUrls, other.headers.get('content-location')!]) {
      const deleted = await fetch(url, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(deleted.status).toBe(202);
    }
    held.release();
    expect((await kickOff(kickOffUrl(teamA.trialId, '?_type=Patient'), token)).status).toBe(202);
  });

  it("security: team A's token gets 404 for team B's trial and jobs; a missing scope 403; no token and a cookie-only request 401", async () => {
    const other = await kickOff(kickOffUrl(teamB.trialId));
    expect(other.status).toBe(404);
    expect((await outcomeOf(other)).code).toBe('not-found');
    // The same answer as for a trial that does not exist: nothing of team B is revealed.
    const missing = await kickOff(kickOffUrl(2_000_000_000));
    expect(missing.status).toBe(404);

    // Team B's own export: team A's token cannot poll, download or cancel it.
    const kickedB = await kickOff(kickOffUrl(teamB.trialId), tokenB);
    expect(kickedB.status).toBe(202);
    const statusB = kickedB.headers.get('content-location')!;
    const manifestB = (await (await pollUntilDone(statusB, tokenB)).json()) as Manifest;
    expect((await get(statusB, tokenA)).status).toBe(404);
    expect((await get(manifestB.output[0]!.url, tokenA)).status).toBe(404);
    const cancelByA = await fetch(statusB, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tokenA}` },
    });
    expect(cancelByA.status).toBe(404);
    expect((await get(statusB, tokenB)).status).toBe(200);

    // Scopes: Patient asked with an Observation-only token is 403; no _type exports what it grants.
    const forbidden = await kickOff(
      kickOffUrl(teamA.trialId, '?_type=Patient,Observation'),
      tokenObservations,
    );
    expect(forbidden.status).toBe(403);
    expect((await outcomeOf(forbidden)).code).toBe('forbidden');
    const granted = await kickOff(kickOffUrl(teamA.trialId), tokenObservations);
    expect(granted.status).toBe(202);
    const manifest = (await (
      await pollUntilDone(granted.headers.get('content-location')!, tokenObservations)
    ).json()) as Manifest;
    expect(new Set(manifest.output.map((file) => file.type))).toEqual(new Set(['Observation']));

    // A revoked client's token stops at its next request, its running export's poll included.
    const revoked = await backendClientOfTeam(t, teamA.teamId);
    const before = await kickOff(kickOffUrl(teamA.trialId, '?_type=Patient'), revoked.token);
    expect(before.status).toBe(202);
    const revoke = await revoked.admin.post(`/api/backendClients/${revoked.client.id}/revoke`, {});
    expect(revoke.statusCode, revoke.body).toBe(200);
    const after = await get(before.headers.get('content-location')!, revoked.token);
    expect(after.status).toBe(401);
    expect((await outcomeOf(after)).code).toBe('login');

    // No token; a staff browser's session cookie alone.
    const anonymous = await fetch(kickOffUrl(teamA.trialId), {
      headers: { accept: 'application/fhir+json', prefer: 'respond-async' },
    });
    expect(anonymous.status).toBe(401);
    expect((await outcomeOf(anonymous)).code).toBe('login');
    const admin = await signIn(
      t.app,
      t.database.db,
      await createStaffUser(t.database.db, { role: 'Admin', teamId: teamA.teamId }),
    );
    // The browser's session cookies (and CSRF token) on the kick-off: cookies never authorise /fhir.
    const cookieOnly = await admin.request(
      'GET',
      `/fhir/Group/${teamA.trialId}/$export`,
      undefined,
      {
        csrf: true,
      },
    );
    expect(cookieOnly.statusCode).toBe(401);
    expect(cookieOnly.json()).toMatchObject({ resourceType: 'OperationOutcome' });
    expect(cookieOnly.json().issue[0].code).toBe('login');
  });
});

/** A free local port (the app's PUBLIC_URL must name the port it listens on). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
