// Checks a received delivery against the `webhooks:` section of openapi.yaml:
// the envelope against the event's request body schema, and the documented
// delivery headers against theirs.
import fs from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { IncomingHttpHeaders } from "node:http";

const spec = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../generated/openapi.json"), "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(spec, "openapi");

type Ref = { $ref: string };
const resolve = <T>(node: T | Ref): T =>
  (node as Ref).$ref
    ? ((node as Ref).$ref
        .slice(2)
        .split("/")
        .reduce((at: Record<string, unknown>, key) => at[key] as Record<string, unknown>, spec) as T)
    : (node as T);
const schemaFor = (ref: Ref | object) => ajv.compile((ref as Ref).$ref ? { $ref: `openapi${(ref as Ref).$ref}` } : ref);

/** Problems of one delivery (empty when it conforms). */
export function webhookContractErrors(eventType: string, headers: IncomingHttpHeaders, rawBody: string): string[] {
  const operation = spec.webhooks?.[eventType]?.post;
  if (!operation) return [`no webhook "${eventType}" in the contract`];
  const errors: string[] = [];
  const validateBody = schemaFor(operation.requestBody.content["application/json"].schema);
  if (!validateBody(JSON.parse(rawBody))) errors.push(`body: ${ajv.errorsText(validateBody.errors)}`);
  type Parameter = { name: string; required?: boolean; schema: object };
  for (const parameter of (operation.parameters as (Ref | Parameter)[]).map((p) => resolve<Parameter>(p))) {
    const value = headers[parameter.name.toLowerCase()];
    if (value === undefined) {
      if (parameter.required) errors.push(`header ${parameter.name} missing`);
      continue;
    }
    const validateHeader = schemaFor(parameter.schema);
    if (!validateHeader(value)) errors.push(`header ${parameter.name}: ${ajv.errorsText(validateHeader.errors)}`);
  }
  return errors;
}
