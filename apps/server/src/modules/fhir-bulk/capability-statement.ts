import { APP_VERSION } from '../../lib/app-version';
import { tokenEndpointUrl } from '../backend-clients/smart.routes';

/** When this server's FHIR capabilities last changed (the CapabilityStatement's `date`). */
const CAPABILITIES_DATE = '2026-11-28';

/**
 * `GET /fhir/metadata` (issue 31): what the /fhir base serves, for FHIR clients that discover
 * before they call. FHIR R4, JSON; the Bulk Data `$export` of a Group (a trial: its
 * participants) with the resource types it writes; SMART-on-FHIR security with the token
 * endpoint of SMART Backend Services (the same URL as `.well-known/smart-configuration`'s).
 */
export function capabilityStatement(publicUrl: string) {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: CAPABILITIES_DATE,
    publisher: 'TrialPulse',
    kind: 'instance',
    instantiates: ['http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data'],
    software: { name: 'TrialPulse', version: APP_VERSION },
    implementation: {
      description: "TrialPulse: a trial's wearable data as FHIR Bulk Data",
      url: `${base}/fhir`,
    },
    fhirVersion: '4.0.1',
    format: ['application/fhir+json'],
    rest: [
      {
        mode: 'server',
        security: {
          extension: [
            {
              url: 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris',
              extension: [{ url: 'token', valueUri: tokenEndpointUrl(base) }],
            },
          ],
          service: [
            {
              coding: [
                {
                  system: 'http://terminology.hl7.org/CodeSystem/restful-security-service',
                  code: 'SMART-on-FHIR',
                },
              ],
              text: 'SMART Backend Services: client_credentials with a private_key_jwt assertion',
            },
          ],
        },
        resource: [
          {
            type: 'Group',
            // GET /fhir/Group: the team's trials, to find the one to export.
            interaction: [{ code: 'search-type' }],
            operation: [
              {
                name: 'export',
                definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/group-export',
              },
            ],
          },
          { type: 'Patient' },
          { type: 'Observation' },
          { type: 'Device' },
        ],
      },
    ],
  };
}
