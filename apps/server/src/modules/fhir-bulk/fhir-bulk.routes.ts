import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_ROW_ID, NO_SUCH_ROW_ID, rowIdSchema } from '@trialpulse/shared';
import { AppError } from '../../lib/errors';
import { FHIR_JSON, FhirError } from '../../lib/fhir-errors';
import { requestMeta } from '../../lib/request-meta';
import { capabilityStatement } from './capability-statement';
import { BULK_RETRY_AFTER_SECONDS, type FhirBulkService } from './fhir-bulk.service';

/** The NDJSON files' media type (Bulk Data IG). */
const FHIR_NDJSON = 'application/fhir+ndjson';

const idParam = rowIdSchema('Not found.');
/** A trial's Group id: `trial-<id>` (the Group resource's id) or the bare trial id. */
const groupIdParam = z
  .string()
  .trim()
  .regex(/^(?:trial-)?[1-9]\d*$/, 'Not found.')
  .transform((id) => {
    // As rowIdSchema: past the id column's range no row has it (404, never a 500).
    const value = Number(id.replace('trial-', ''));
    return value > MAX_ROW_ID ? NO_SUCH_ROW_ID : value;
  });
/** A kick-off parameter: once, or repeated (`_type=Patient&_type=Observation`). */
const repeatable = z.union([z.string().max(2000), z.array(z.string().max(2000)).max(20)]);
const kickOffQuery = z.looseObject({
  _type: repeatable.optional(),
  _since: repeatable.optional(),
  _outputFormat: repeatable.optional(),
});

/**
 * FHIR Bulk Data under /fhir (issue 31): the CapabilityStatement (public), and for a backend
 * client's bearer token (`requireBackendClient`, SMART Backend Services) the `$export` of a
 * trial as a Group, its status URL (poll, DELETE to cancel) and its NDJSON files. Errors are
 * OperationOutcomes (FhirError, rendered by the error handler). Thin: fhir-bulk.service.ts
 * reads the protocol, the export module runs the export.
 */
export const fhirBulkRoutes: FastifyPluginAsyncZod<{
  fhirBulk: FhirBulkService;
  publicUrl: string;
}> = async (app, { fhirBulk, publicUrl }) => {
  const base = publicUrl.replace(/\/+$/, '');
  // A POST kick-off may carry a FHIR Parameters resource (this plugin's scope only).
  app.addContentTypeParser(FHIR_JSON, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string));
    } catch (error) {
      done(new AppError(400, 'The request could not be read.', { cause: error }), undefined);
    }
  });
  const metadata = capabilityStatement(publicUrl);

  app.get(
    '/fhir/metadata',
    {
      schema: {
        tags: ['fhir'],
        summary: 'FHIR CapabilityStatement: Bulk Data $export of a trial, SMART Backend Services',
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600').type(FHIR_JSON);
      return metadata;
    },
  );

  app.get(
    '/fhir/Group',
    {
      schema: {
        tags: ['fhir'],
        summary: "The team's trials as Groups (a searchset Bundle): what the client may export",
      },
      preHandler: app.requireBackendClient({ scope: 'system/Group.rs' }),
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').type(FHIR_JSON);
      return fhirBulk.groups(request.backendClient!);
    },
  );

  const kickOff = async (
    request: FastifyRequest & { params: { trialId: number } },
    parameters: Record<string, string[]>,
  ) =>
    fhirBulk.kickOff(
      request.backendClient!,
      {
        trialId: request.params.trialId,
        parameters,
        prefer: [request.headers.prefer ?? []].flat().join(', ') || undefined,
        accept: request.headers.accept,
        url: `${base}${request.url}`,
      },
      requestMeta(request),
    );
  const accepted = (statusUrl: string) => ({
    resourceType: 'OperationOutcome',
    issue: [
      {
        severity: 'information',
        code: 'informational',
        diagnostics: `The export is accepted: poll ${statusUrl} for its manifest.`,
      },
    ],
  });

  app.get(
    '/fhir/Group/:trialId/$export',
    {
      schema: {
        tags: ['fhir'],
        summary: "Bulk Data kick-off: export a trial's participants (a Group) as NDJSON",
        description:
          'Headers: Accept: application/fhir+json, Prefer: respond-async. Parameters: _type (Group, Patient, Device, Observation), _since (FHIR instant), _outputFormat (application/fhir+ndjson). 202 with Content-Location: the status URL.',
        params: z.object({ trialId: groupIdParam }),
        querystring: kickOffQuery,
      },
      preHandler: app.requireBackendClient(),
    },
    async (request, reply) => {
      const { statusUrl } = await kickOff(request, queryParameters(request.query));
      return reply
        .code(202)
        .header('content-location', statusUrl)
        .type(FHIR_JSON)
        .send(accepted(statusUrl));
    },
  );

  app.post(
    '/fhir/Group/:trialId/$export',
    {
      schema: {
        tags: ['fhir'],
        summary: 'Bulk Data kick-off (POST): parameters in the query or as a FHIR Parameters body',
        params: z.object({ trialId: groupIdParam }),
        querystring: kickOffQuery,
      },
      preHandler: app.requireBackendClient(),
    },
    async (request, reply) => {
      const parameters = queryParameters(request.query);
      for (const [name, values] of Object.entries(parametersBody(request.body)))
        parameters[name] = [...(parameters[name] ?? []), ...values];
      const { statusUrl } = await kickOff(request, parameters);
      return reply
        .code(202)
        .header('content-location', statusUrl)
        .type(FHIR_JSON)
        .send(accepted(statusUrl));
    },
  );

  app.get(
    '/fhir/bulkstatus/:jobId',
    {
      schema: {
        tags: ['fhir'],
        summary: 'Bulk Data status: 202 with X-Progress while running, 200 with the manifest',
        params: z.object({ jobId: idParam }),
      },
      preHandler: app.requireBackendClient(),
    },
    async (request, reply) => {
      const status = await fhirBulk.status(request.backendClient!, request.params.jobId);
      reply.header('cache-control', 'no-store');
      if (status.state === 'running')
        return reply
          .code(202)
          .header('x-progress', `${status.progress}% done`)
          .header('retry-after', String(BULK_RETRY_AFTER_SECONDS))
          .send();
      if (status.expiresAt) reply.header('expires', status.expiresAt.toUTCString());
      return reply.code(200).type('application/json').send(status.manifest);
    },
  );

  app.delete(
    '/fhir/bulkstatus/:jobId',
    {
      schema: {
        tags: ['fhir'],
        summary: 'Bulk Data cancel: stops a running export or deletes a finished one',
        params: z.object({ jobId: idParam }),
      },
      preHandler: app.requireBackendClient(),
    },
    async (request, reply) => {
      const outcome = await fhirBulk.cancel(
        request.backendClient!,
        request.params.jobId,
        requestMeta(request),
      );
      return reply.code(202).type(FHIR_JSON).send(outcome);
    },
  );

  app.get(
    '/fhir/bulkfiles/:jobId/:name',
    {
      schema: {
        tags: ['fhir'],
        summary: 'A Bulk Data output file (NDJSON, one resource per line)',
        params: z.object({ jobId: idParam, name: z.string().max(200) }),
      },
      // NDJSON shrinks about tenfold; gzip at level 1 keeps a gigabyte file cheap for the web
      // process (the app's brotli-or-gzip default is for pages, not NDJSON's media type).
      compress: {
        customTypes: /^application\/fhir\+ndjson/,
        encodings: ['gzip'],
        zlibOptions: { level: 1 },
        threshold: 1024,
      },
      preHandler: app.requireBackendClient(),
    },
    async (request, reply) => {
      const file = await fhirBulk.file(
        request.backendClient!,
        request.params.jobId,
        request.params.name,
        request.headers.accept,
        requestMeta(request),
      );
      return reply
        .code(200)
        .header('content-length', String(file.size))
        .header('cache-control', 'no-store')
        .type(FHIR_NDJSON)
        .send(file.stream);
    },
  );
};

/** The query's kick-off parameters, each as the list of its values. */
function queryParameters(query: Record<string, unknown>): Record<string, string[]> {
  const parameters: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    const values = (Array.isArray(value) ? value : [value]).filter(
      (entry): entry is string => typeof entry === 'string',
    );
    if (values.length) parameters[name] = values;
  }
  return parameters;
}

/**
 * A POST kick-off's FHIR Parameters body (`parameter: [{ name, valueString | valueInstant }]`),
 * each as the list of its values; no body: none. Throws FhirError 400 for another body.
 */
function parametersBody(body: unknown): Record<string, string[]> {
  if (body === undefined || body === null) return {};
  const resource = body as { resourceType?: unknown; parameter?: unknown };
  if (resource.resourceType !== 'Parameters' || !Array.isArray(resource.parameter ?? []))
    throw FhirError.invalid('A POST kick-off body must be a FHIR Parameters resource.');
  const parameters: Record<string, string[]> = {};
  for (const entry of (resource.parameter ?? []) as Record<string, unknown>[]) {
    const value = [entry.valueString, entry.valueInstant, entry.valueCode].find(
      (candidate) => typeof candidate === 'string',
    ) as string | undefined;
    if (typeof entry.name !== 'string' || value === undefined)
      throw FhirError.invalid('Each parameter needs a name and a string, instant or code value.');
    parameters[entry.name] = [...(parameters[entry.name] ?? []), value];
  }
  return parameters;
}
