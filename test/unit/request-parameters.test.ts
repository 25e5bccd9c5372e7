// The pipeline parses a request once and calls the operation's compiled validators itself
// (src/pipeline/request-parameters.ts); it must give what openapi-backend's validateRequest gives:
// the same errors, and for a valid request the same coerced path and query. Compared here for
// every operation of the document, with valid and invalid values of every parameter.
import { expect } from "chai";
import type { OpenAPIBackend, Operation, Request } from "openapi-backend";
import { API_ROOT, loadContract } from "../../src/pipeline/contract.ts";
import { validateParameters } from "../../src/pipeline/request-parameters.ts";

/** Values every parameter is tried with: text, numbers in and out of range, booleans, encodings. */
const VALUES = ["x_1", "7", "-3", "101", "abc", "true", "2026-01-02T03:04:05Z", "caf%C3%A9", "a%2Fb"];

function requestsFor(operation: Operation): (Request & { body?: unknown })[] {
  const parameters = (operation.parameters ?? []).filter((p) => !("$ref" in p)) as {
    name: string;
    in: string;
  }[];
  const queryNames = parameters.filter((p) => p.in === "query").map((p) => p.name);
  const bodies: unknown[] = operation.requestBody
    ? [undefined, {}, [], { code: 5 }, [{ code: "A" }], "text"]
    : [undefined];
  const requests: (Request & { body?: unknown })[] = [];
  for (const value of VALUES) {
    const path = API_ROOT + operation.path.replace(/\{[^}]+\}/g, value);
    const queries = [
      "",
      queryNames.map((name) => `${name}=${value}`).join("&"),
      queryNames.map((name) => `${name}=${value}&${name}=1`).join("&"),
    ];
    for (const query of queries)
      for (const body of bodies)
        requests.push({
          method: operation.method,
          path,
          query,
          headers: { "content-type": "application/json", "idempotency-key": value, "if-match": `"${value}"` },
          body,
        });
  }
  return requests;
}

describe("request parameters: parsed once, validated as openapi-backend validates", () => {
  let contract: OpenAPIBackend;
  before(async () => {
    contract = await loadContract();
  });

  it("gives validateRequest's errors and coerced path and query for every operation", () => {
    let compared = 0;
    let valid = 0;
    for (const operation of contract.router.getOperations()) {
      for (const request of requestsFor(operation)) {
        const ours = validateParameters(contract, operation, request);
        const theirs = contract.validator.validateRequest(request, operation);
        const label = `${operation.operationId} ${request.path}?${request.query} ${JSON.stringify(request.body)}`;
        // A JSON body that is a string ("text") reaches the validators parsed; validateRequest takes a
        // string for unparsed JSON and adds a parse error, which the pipeline never has to report.
        const expected = theirs.errors?.filter((e) => !(typeof request.body === "string" && e.keyword === "parse"));
        expect(ours.errors ?? null, label).to.deep.equal(expected?.length ? expected : null);
        if (!theirs.errors) {
          valid += 1;
          expect(ours.parameters.path, `${label}: path`).to.deep.equal(theirs.coerced?.params ?? {});
          expect(ours.parameters.query, `${label}: query`).to.deep.equal(theirs.coerced?.query);
        }
        compared += 1;
      }
    }
    expect(compared).to.be.greaterThan(1000);
    expect(valid, "some requests are valid, so coerced values are compared too").to.be.greaterThan(100);
  });
});
