// The fuzzer's broken bodies (test/fuzz/arbitraries.ts) are refused by the contract's own
// validator with a pointer at the broken place, for every operation, with no server: a break
// that is valid, or valid for another branch of a oneOf (an object for a one-or-many body,
// null for a nullable enum), would make the fuzz suite fail for nothing.
import { expect } from "chai";
import fc from "fast-check";
import type { ErrorObject, ValidateFunction } from "ajv";
import { loadContract, loadSpec } from "../../src/pipeline/contract.ts";
import { requestFieldErrors } from "../../src/pipeline/request-errors.ts";
import { SchemaArbitraries, applyMutation, toPointer, type JsonSchema } from "../fuzz/arbitraries.ts";
import { operationsOf } from "../fuzz/requests.ts";

/** Valid bodies per operation, and draws of each way of breaking one. */
const BODIES = 6;
const DRAWS = 6;

describe("fuzz generator: every break of a body is refused where it was made", () => {
  const document = loadSpec();
  const schemas = new SchemaArbitraries(document as unknown as JsonSchema);
  const withJsonBody = operationsOf(document).filter((operation) => operation.body?.mediaType.endsWith("json"));

  it("the document has operations with JSON bodies, oneOf and nullable members among them", () => {
    expect(withJsonBody.map((operation) => operation.operationId)).to.include.members([
      "upsertCourses",
      "updateEquivalency",
    ]);
  });

  for (const operation of withJsonBody) {
    it(`${operation.operationId}: each break is invalid and pointed at`, async () => {
      const validator = (await contract).validator.getRequestValidatorsForOperation(operation.operationId);
      const body = validator.find(isBodyValidator);
      // Every way of breaking each body, each drawn several times (a wrong type is one of several).
      const bodies = fc.sample(schemas.valid(operation.body!.schema), { numRuns: BODIES, seed: 44 });
      for (const [index, value] of bodies.entries()) {
        for (const [way, breaking] of schemas.mutations(operation.body!.schema, value).entries()) {
          for (const mutation of fc.sample(breaking, { numRuns: DRAWS, seed: index * 1000 + way })) {
            const broken = applyMutation(value, mutation);
            const pointer = toPointer([...mutation.at, ...(mutation.inside ?? [])]);
            body!({ requestBody: broken });
            const pointers = requestFieldErrors((body!.errors ?? []) as ErrorObject[]).map((error) => error.pointer);
            const context = `${mutation.breaks} at "${pointer}": ${JSON.stringify(broken).slice(0, 300)}`;
            expect(pointers, context).to.include(pointer);
          }
        }
      }
    });
  }
});

const contract = loadContract();

function isBodyValidator(validate: unknown): boolean {
  const schema = (validate as ValidateFunction).schema as { properties?: Record<string, unknown> };
  return Boolean(schema?.properties?.requestBody);
}
