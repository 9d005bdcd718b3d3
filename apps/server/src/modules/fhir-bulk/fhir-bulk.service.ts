import type { Readable } from 'node:stream';
import { FhirError } from '../../lib/fhir-errors';
import type { Meta } from '../../lib/request-meta';
import type { BackendCaller } from '../backend-clients/backend-clients.service';
import { scopesAllow } from '../backend-clients/backend-scopes';
import { BULK_TYPES, type BulkType } from '../export/export-bulk';
import { fhirTrialGroup } from '../export/export-standards';
import { BULK_MAX_UNFINISHED, type ExportService } from '../export/export.service';

/** The `_outputFormat` values Bulk Data clients send for NDJSON (the first is the spec's, the others its aliases). */
export const BULK_OUTPUT_FORMATS = ['application/fhir+ndjson', 'application/ndjson', 'ndjson'];

/** Kick-off parameters of the Bulk Data IG this server does not implement: refused (400) unless `handling=lenient`. */
const UNSUPPORTED_PARAMETERS = [
  '_typeFilter',
  '_elements',
  'patient',
  'includeAssociatedData',
  '_until',
  'organizeOutputBy',
  'allowPartialManifests',
];

/** How long a client should wait before polling a running export again (seconds, `Retry-After`). */
export const BULK_RETRY_AFTER_SECONDS = 5;

/** A FHIR instant (R4 `instant`: a date-time with seconds and a zone). */
const FHIR_INSTANT =
  /^([0-9]([0-9]([0-9][1-9]|[1-9]0)|[1-9]00)|[1-9]000)-(0[1-9]|1[0-2])-(0[1-9]|[1-2][0-9]|3[0-1])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))$/;

/** A kick-off as the routes read it: the query (or POST Parameters) and the headers that matter. */
export type KickOffRequest = {
  trialId: number;
  /** Each parameter's values as given (a parameter may repeat). */
  parameters: Record<string, string[]>;
  prefer: string | undefined;
  accept: string | undefined;
  /** The kick-off URL as the client called it (the manifest's `request`). */
  url: string;
};

/** The Bulk Data manifest (export.html: "Response - Complete Status"). */
export type BulkManifest = {
  transactionTime: string;
  request: string;
  requiresAccessToken: true;
  output: { type: string; url: string; count: number }[];
  error: { type: 'OperationOutcome'; url: string }[];
};

/**
 * FHIR Bulk Data `$export` of a trial (issue 31) for backend clients: reads the kick-off's
 * parameters and headers as the Bulk Data IG says, hands the export to the export module
 * (its job, worker, files, retention and audit), and presents the status, the manifest and
 * the files. The team is always the client's (its token's): another team's trial or job is
 * not found. Failures are FhirError (OperationOutcome).
 */
export function createFhirBulkService(deps: {
  exports: Pick<
    ExportService,
    'bulkGroups' | 'bulkKickOff' | 'bulkStatus' | 'bulkCancel' | 'bulkFile'
  >;
  /** The public base URL (PUBLIC_URL): the status and file URLs are absolute under it. */
  publicUrl: string;
}) {
  const { exports } = deps;
  const base = `${deps.publicUrl.replace(/\/+$/, '')}/fhir`;
  const statusUrl = (jobId: number) => `${base}/bulkstatus/${jobId}`;
  const fileUrl = (jobId: number, name: string) => `${base}/bulkfiles/${jobId}/${name}`;

  return {
    statusUrl,

    /**
     * `GET /fhir/Group`: the team's trials as Groups (without members) in a searchset Bundle,
     * so a pipeline finds the id to export (`Group/trial-<id>/$export`).
     */
    async groups(client: BackendCaller) {
      const trials = await exports.bulkGroups(client);
      return {
        resourceType: 'Bundle' as const,
        type: 'searchset' as const,
        total: trials.length,
        link: [{ relation: 'self', url: `${base}/Group` }],
        entry: trials.map((trial) => {
          const resource = fhirTrialGroup(trial);
          return { fullUrl: `${base}/Group/${resource.id}`, resource, search: { mode: 'match' } };
        }),
      };
    },

    /**
     * Starts an export of the trial's Group: checks `Prefer: respond-async`, `Accept`,
     * `_outputFormat`, `_type` (each type supported and granted by the token's scopes; none
     * given: every type they grant) and `_since`, then records the job. Answers the status
     * URL. Throws FhirError 400 (a header or parameter), 403 (a type the scopes do not grant),
     * 404 (not the team's trial), 429 (the client has BULK_MAX_UNFINISHED exports unfinished).
     */
    async kickOff(client: BackendCaller, request: KickOffRequest, meta: Meta) {
      if (!preferences(request.prefer).has('respond-async'))
        throw FhirError.invalid('The Prefer header must include respond-async.');
      if (!accepts(request.accept, ['application/fhir+json']))
        throw FhirError.invalid('The Accept header must be application/fhir+json.');
      const lenient = preferences(request.prefer).has('handling=lenient');
      const single = (name: string) => {
        const values = request.parameters[name] ?? [];
        if (values.length > 1) throw FhirError.invalid(`${name} may be given once.`);
        return values[0];
      };
      const outputFormat = single('_outputFormat');
      if (outputFormat !== undefined && !BULK_OUTPUT_FORMATS.includes(outputFormat))
        throw FhirError.invalid(
          `_outputFormat ${outputFormat} is not supported: use application/fhir+ndjson.`,
        );
      if (!lenient)
        for (const name of UNSUPPORTED_PARAMETERS)
          if (request.parameters[name])
            throw FhirError.invalid(
              `${name} is not supported by this server (send Prefer: handling=lenient to have it ignored).`,
            );
      const since = single('_since');
      if (since !== undefined && (!FHIR_INSTANT.test(since) || Number.isNaN(Date.parse(since))))
        throw FhirError.invalid(
          '_since must be a FHIR instant, such as 2026-11-01T00:00:00Z (with seconds and a time zone).',
        );
      const types = requestedTypes(request.parameters._type, client.scopes);

      const started = await exports.bulkKickOff(
        { clientId: client.clientId, teamId: client.teamId },
        request.trialId,
        {
          types,
          since: since === undefined ? null : new Date(since).toISOString(),
          request: request.url,
        },
        meta,
      );
      if (!started) throw FhirError.notFound(`Group/${request.trialId} is not found.`);
      if (started === 'busy')
        throw new FhirError(
          429,
          'throttled',
          `This client already has ${BULK_MAX_UNFINISHED} exports running: wait for one to finish, or cancel one (DELETE its status URL).`,
          { 'retry-after': '60' },
        );
      return { jobId: started.jobId, statusUrl: statusUrl(started.jobId) };
    },

    /**
     * Where the export stands: running (`progress` 0–100), or completed with its manifest.
     * Throws FhirError 404 (not the team's, cancelled or expired) or 500 (the export failed).
     */
    async status(client: BackendCaller, jobId: number) {
      const status = await exports.bulkStatus(client, jobId);
      if (!status) throw FhirError.notFound(`Export ${jobId} is not found (cancelled or expired).`);
      if (status.state === 'running')
        return { state: 'running' as const, progress: status.progress };
      if (status.state === 'failed')
        throw new FhirError(500, 'exception', 'The export failed. Start a new one.');
      const manifest: BulkManifest = {
        transactionTime: status.transactionTime.toISOString(),
        request: status.request,
        requiresAccessToken: true,
        output: status.files.output.map((file) => ({
          type: file.type,
          url: fileUrl(jobId, file.name),
          count: file.count,
        })),
        error: status.files.error.map((file) => ({
          type: 'OperationOutcome' as const,
          url: fileUrl(jobId, file.name),
        })),
      };
      return { state: 'completed' as const, manifest, expiresAt: status.expiresAt };
    },

    /** Cancels a running export or deletes a finished one with its files. Throws FhirError 404. */
    async cancel(client: BackendCaller, jobId: number, meta: Meta) {
      if (!(await exports.bulkCancel(client, jobId, meta)))
        throw FhirError.notFound(`Export ${jobId} is not found (cancelled or expired).`);
      return {
        resourceType: 'OperationOutcome' as const,
        issue: [
          {
            severity: 'information' as const,
            code: 'informational' as const,
            diagnostics: `Export ${jobId} is cancelled and its files are deleted.`,
          },
        ],
      };
    },

    /**
     * One NDJSON file of a completed export: its stream and size. Throws FhirError 406 (an
     * Accept that takes no NDJSON) or 404 (no such file of the team's exports).
     */
    async file(
      client: BackendCaller,
      jobId: number,
      name: string,
      accept: string | undefined,
      meta: Meta,
    ): Promise<{ stream: Readable; size: number }> {
      if (accept !== undefined && !accepts(accept, BULK_OUTPUT_FORMATS.slice(0, 2)))
        throw new FhirError(406, 'not-supported', 'The files are application/fhir+ndjson.');
      const file = await exports.bulkFile(client, jobId, name, meta);
      if (!file) throw FhirError.notFound(`File ${name} of export ${jobId} is not found.`);
      return file;
    },
  };
}

export type FhirBulkService = ReturnType<typeof createFhirBulkService>;

/**
 * The types to export: `_type` (comma-separated, may repeat), each supported and granted by
 * the scopes (403 otherwise); none given: every supported type the scopes grant (the IG: "all
 * supported resources within the scope of the client authorization").
 */
function requestedTypes(values: string[] | undefined, scopes: readonly string[]): BulkType[] {
  const asked = (values ?? []).flatMap((value) => value.split(',')).map((type) => type.trim());
  if (asked.length === 0) {
    const granted = BULK_TYPES.filter((type) => scopesAllow(scopes, type));
    if (granted.length === 0)
      throw FhirError.forbidden('The access token grants none of the exported resource types.');
    return granted;
  }
  const types: BulkType[] = [];
  for (const type of asked) {
    if (!(BULK_TYPES as readonly string[]).includes(type))
      throw FhirError.invalid(
        `_type ${type || '(empty)'} is not exported here: ${BULK_TYPES.join(', ')}.`,
      );
    if (!scopesAllow(scopes, type as BulkType))
      throw FhirError.forbidden(`The access token does not grant system/${type}.rs.`);
    if (!types.includes(type as BulkType)) types.push(type as BulkType);
  }
  return BULK_TYPES.filter((type) => types.includes(type));
}

/** The preferences of a Prefer header (RFC 7240), lower-cased: `respond-async`, `handling=lenient`. */
function preferences(header: string | undefined): Set<string> {
  return new Set(
    (header ?? '')
      .split(/[,;]/)
      .map((part) =>
        part
          .trim()
          .toLowerCase()
          .replace(/\s*=\s*/, '='),
      )
      .filter(Boolean),
  );
}

/** Whether an Accept header takes one of `types` (a wildcard does; q=0 does not). */
function accepts(header: string | undefined, types: readonly string[]): boolean {
  if (header === undefined) return false;
  return header.split(',').some((range) => {
    const [media, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (params.some((param) => /^q=0(\.0*)?$/.test(param))) return false;
    if (media === '*/*' || media === 'application/*') return true;
    return types.includes(media ?? '');
  });
}
