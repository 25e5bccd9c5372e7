// Spec-driven: for every operation of the document, real requests produce the
// responses that all operations share: 401 (no credential), 403 (a key without
// the operation's scope), 429 (an app whose buckets hold one request),
// `default` (a status it does not list, such as 406 for an Accept it cannot
// answer) and, where the operation allows them, 400 (a broken parameter or
// body), 404 (an unknown id in its path), 413 and 415 (a body too large, or
// not JSON). Everything else about each request is valid and addresses real
// records, so the condition under test is the only reason for the answer.
// Each response goes through expectContract, which records the pair for the
// contract coverage gate; a pair no case here can produce is left to a focused
// test in the resource's own file, and the gate names it when none does.
import { CSV_BODY_LIMIT_FACTOR } from "../../src/pipeline/pipeline.ts";
import { expect } from "chai";
import { SCOPES } from "../../src/auth/credential.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { createPathRecords, type PathFiller } from "../helpers/path-records.ts";
import { specOperations, type SpecOperation, type SpecParameter } from "../helpers/spec-operations.ts";
import { createUserWithToken } from "../helpers/people.ts";

const operations = specOperations();
const documenting = (status: string) => operations.filter((o) => o.responses.includes(status));

interface Call {
  path?: string;
  query?: Record<string, string>;
  key?: string;
  headers?: Record<string, string>;
  /** Raw request body; defaults to the documented example, sent as JSON (a text body as it is). */
  body?: string;
  contentType?: string;
}

function call(t: TestApp, operation: SpecOperation, fill: PathFiller, options: Call) {
  let request = t.http[operation.method](`/api/v1${options.path ?? fill(operation.path)}`).query(options.query ?? {});
  if (options.key) request = request.set(bearer(options.key));
  for (const [name, value] of Object.entries(options.headers ?? {})) request = request.set(name, value);
  const mediaType = operation.bodyMediaType ?? "application/json";
  const example = mediaType.endsWith("json")
    ? JSON.stringify(operation.exampleBody ?? {})
    : String(operation.exampleBody);
  const body = options.body ?? (operation.hasBody ? example : undefined);
  if (body === undefined) return request;
  return request.set("Content-Type", options.contentType ?? mediaType).send(body);
}

/** A value that breaks the parameter's schema, or undefined when no value can. */
function breakingValue(parameter: SpecParameter): string | undefined {
  const { schema } = parameter;
  if (schema.enum) return "not-a-documented-value";
  if (schema.type === "integer" || schema.type === "number")
    return schema.minimum === undefined ? "not-a-number" : String(schema.minimum - 1);
  if (schema.type === "boolean") return "maybe";
  return undefined;
}

/** How to get a 400 from the operation: a body of the wrong type, else one broken parameter. */
function invalidRequest(operation: SpecOperation): ((fill: PathFiller) => Call) | undefined {
  if (operation.hasBody) return () => ({ body: "42" });
  for (const parameter of operation.parameters) {
    const value = breakingValue(parameter);
    if (value === undefined) continue;
    if (parameter.in === "query") return () => ({ query: { [parameter.name]: value } });
    if (parameter.in === "path")
      return (fill) => ({ path: fill(operation.path.replace(`{${parameter.name}}`, value)) });
  }
  return undefined;
}

/** The path with its last parameter replaced by a well-formed id of no record. */
function unknownRecordPath(operation: SpecOperation, fill: PathFiller): string {
  const last = operation.path.match(/\{(\w+)\}(?!.*\{)/)![1];
  const schema = operation.parameters.find((p) => p.in === "path" && p.name === last)!.schema;
  return fill(operation.path.replace(`{${last}}`, schema.type === "integer" ? "999999" : "unknown-record"));
}

/**
 * A request the operation answers with a status it does not list: 406 for an Accept it cannot
 * serve (when it answers with content), else 400 for an unknown query parameter (when it does not
 * document 400).
 */
function undocumentedStatusRequest(operation: SpecOperation) {
  if (operation.successTypes.length > 0) {
    return {
      title: "406 for Accept: image/png",
      status: 406,
      slug: "not-acceptable",
      call: { headers: { Accept: "image/png" } },
    };
  }
  if (!operation.responses.includes("400")) {
    return {
      title: "400 for an unknown query parameter",
      status: 400,
      slug: "validation-failed",
      call: { query: { unknownParameter: "1" } },
    };
  }
  return undefined;
}

/** Operations for people only (members, the audit log) are called with an admin user's token, the rest with a key. */
const userTokens = new WeakMap<TestApp, Promise<string>>();
function adminToken(t: TestApp): Promise<string> {
  let token = userTokens.get(t);
  if (!token) {
    token = createUserWithToken(t, "admin").then((user) => user.token);
    userTokens.set(t, token);
  }
  return token;
}
async function credentialFor(t: TestApp, operation: SpecOperation): Promise<string> {
  return operation.credentialKinds && !operation.credentialKinds.includes("api_key") ? adminToken(t) : t.keys.live;
}

describe("contract coverage: the responses every operation shares", () => {
  let t: TestApp;
  let fill: PathFiller;
  const keysWithout = new Map<string, string>();

  /** A live key of the test organization holding every scope except the operation's. */
  async function keyLacking(scopes: string[]): Promise<string> {
    const others = SCOPES.filter((scope) => !scopes.includes(scope));
    const cached = keysWithout.get(others.join());
    if (cached) return cached;
    const created = await t.app.context.services.keys.issueKey({
      organizationId: t.organizationId,
      environment: "live",
      scopes: others,
      name: "lacking",
    });
    keysWithout.set(others.join(), created.key);
    return created.key;
  }

  before(async () => {
    t = await createTestApp({ SVC_BODY_LIMIT_BYTES: "1024" });
    fill = await createPathRecords(t);
  });
  after(() => t.close());

  it("finds the operations in the document", () => {
    expect(operations.length).to.be.greaterThan(0);
  });

  describe("401 without a credential", () => {
    for (const operation of documenting("401")) {
      it(operation.operationId, async () => {
        const response = await call(t, operation, fill, {});
        await expectContract(response, 401);
        expectProblem(response, "unauthenticated");
        expect(response.headers["www-authenticate"]).to.match(/^Bearer realm=/);
      });
    }
  });

  describe("403 with a key that lacks the operation's scope", () => {
    const scoped = documenting("403").filter(
      (o) => o.scopes.length > 0 && SCOPES.some((scope) => !o.scopes.includes(scope)),
    );
    for (const operation of scoped) {
      it(`${operation.operationId} (needs ${operation.scopes.join(", ")})`, async () => {
        const response = await call(t, operation, fill, { key: await keyLacking(operation.scopes) });
        await expectContract(response, 403);
        expectProblem(response, "forbidden");
        expect(response.body.detail).to.contain(operation.scopes[0]);
      });
    }
  });

  describe("default: a status the operation does not document", () => {
    for (const operation of documenting("default")) {
      const undocumented = undocumentedStatusRequest(operation);
      if (!undocumented) continue;
      it(`${operation.operationId} (${undocumented.title})`, async () => {
        const key = await credentialFor(t, operation);
        const response = await call(t, operation, fill, { key, ...undocumented.call });
        await expectContract(response, undocumented.status);
        expectProblem(response, undocumented.slug);
      });
    }
  });

  describe("400 for a broken parameter or body", () => {
    for (const operation of documenting("400")) {
      const invalid = invalidRequest(operation);
      if (!invalid) continue;
      it(operation.operationId, async () => {
        const key = await credentialFor(t, operation);
        const response = await call(t, operation, fill, { key, ...invalid(fill) });
        await expectContract(response, 400);
        expectProblem(response, "validation-failed");
      });
    }
  });

  describe("404 for an unknown id in the path", () => {
    for (const operation of documenting("404").filter((o) => o.path.includes("{"))) {
      it(operation.operationId, async () => {
        const key = await credentialFor(t, operation);
        const response = await call(t, operation, fill, { key, path: unknownRecordPath(operation, fill) });
        await expectContract(response, 404);
        expectProblem(response, "not-found");
      });
    }
  });

  describe("413 for a body over the size limit", () => {
    for (const operation of documenting("413").filter((o) => o.hasBody)) {
      it(operation.operationId, async () => {
        // A CSV body (an import file) may be CSV_BODY_LIMIT_FACTOR times larger than a JSON one.
        const limit = t.config.bodyLimitBytes * (operation.bodyMediaType === "text/csv" ? CSV_BODY_LIMIT_FACTOR : 1);
        const body = JSON.stringify({ padding: "x".repeat(limit) });
        const response = await call(t, operation, fill, { key: await credentialFor(t, operation), body });
        await expectContract(response, 413);
        expectProblem(response, "payload-too-large");
      });
    }
  });

  describe("415 for a body that is not JSON", () => {
    for (const operation of documenting("415").filter((o) => o.hasBody)) {
      it(operation.operationId, async () => {
        const key = await credentialFor(t, operation);
        const response = await call(t, operation, fill, { key, contentType: "text/plain" });
        await expectContract(response, 415);
        expectProblem(response, "unsupported-media-type");
      });
    }
  });

  describe("429 once the credential's bucket is empty", () => {
    let limited: TestApp;
    let fillLimited: PathFiller;
    before(async () => {
      // A bucket of one request that takes over 15 minutes to refill.
      limited = await createTestApp({ SVC_RATE_LIMIT_BURST: "1", SVC_RATE_LIMIT_REFILL_PER_SECOND: "0.001" });
      fillLimited = await createPathRecords(limited);
      const first = await limited.http.get("/api/v1/institutions").set(bearer(limited.keys.live));
      await expectContract(first, 200);
      expect(first.headers["x-ratelimit-remaining"]).to.equal("0");
      const firstOfUser = await limited.http.get("/api/v1/institutions").set(bearer(await adminToken(limited)));
      await expectContract(firstOfUser, 200);
      // The public explorer's operations need no credential: they draw from the address's bucket.
      const firstOfAddress = await limited.http.get("/api/v1/explorer/environments");
      await expectContract(firstOfAddress, 200);
    });
    after(() => limited.close());

    for (const operation of documenting("429")) {
      it(operation.operationId, async () => {
        const key = await credentialFor(limited, operation);
        const response = await call(limited, operation, fillLimited, { key });
        await expectContract(response, 429);
        expectProblem(response, "rate-limited");
        expect(Number(response.headers["retry-after"])).to.be.greaterThan(0);
      });
    }
  });
});
