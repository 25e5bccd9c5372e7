// Property-based fuzzing of every operation, from the document alone: requests
// valid against it are never answered 5xx and every answer is on the document;
// a request broken at one place is answered 400 validation-failed with a
// pointer at that place. SVC_FUZZ_RUNS sets the requests per property,
// SVC_FUZZ_SEED replays a failed run (its report names the seed).
import { expect } from "chai";
import type { Response } from "supertest";
import { loadSpec } from "../../src/pipeline/contract.ts";
import { createTestApp, bearer, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { Receiver } from "../helpers/receiver.ts";
import { assertProperty, runs } from "./properties.ts";
import { RequestArbitraries, describeRequest, operationsOf, send, type RequestParts } from "./requests.ts";
import { recordHints, seedRecords, type Records } from "./records.ts";
import { createUserWithToken } from "../helpers/people.ts";

const document = loadSpec();

/**
 * 400s that a schema-valid request may still earn, by pointer: references to
 * records that do not exist or do not fit, a course twice in one batch, a CTDL
 * export of another resource, a dataset recordCount past its documented limit;
 * and any text holding U+0000 or a lone surrogate, which the document names as
 * a cause of 400 (the database cannot store it).
 */
const SEMANTIC_POINTERS = [
  // A cursor is a string to the document; only one this service issued opens (invalid-cursor otherwise).
  /^\/query\/after$/,
  // Last-Event-ID is a cursor of the event feed too (GET /events/stream).
  /^\/header\/last-event-id$/,
  /^(\/\d+)?\/(institutionId|code)$/,
  /^\/(sourceCourseId|targetInstitutionId|targetCourseId)$/,
  // A rule's parts that must hold together (docs/api-guide.md#articulation-rules): source
  // courses that exist and are given once, targets of the target institution that name a course
  // or a code, an area for general education only, no targets without credit, dates in order.
  /^\/(sourceCourseIds|targets)(\/\d+(\/(courseId|code))?)?$/,
  /^\/(generalEducationArea|effectiveUntil|targetCode)$/,
  /^\/query\/format$/,
  /^\/recordCount$/,
  // An evaluation's course: unknown, given both ways or neither, or twice (POST /transfer-evaluations).
  /^\/courses\/\d+(\/(courseId|institutionId|code))?$/,
];

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function explainedRefusal(request: RequestParts, pointer: string): boolean {
  if (SEMANTIC_POINTERS.some((allowed) => allowed.test(pointer))) return true;
  // A text body (an import file) whose text is not a file of the documented layout (its columns
  // are described in prose, not by the schema): a 400 about the whole body.
  if (pointer === "" && (typeof request.body === "string" || request.body === undefined)) return true;
  const value = valueAt(request, pointer);
  // A course code of white space alone would be stored empty; the document says it is a 400.
  if (/\/targetCode$/.test(pointer) && typeof value === "string" && value.trim() === "") return true;
  return UNSTORABLE.test(pointer) || (typeof value === "string" && UNSTORABLE.test(value));
}

function valueAt(request: RequestParts, pointer: string): unknown {
  const [first, ...rest] = pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
  const start = first === "path" || first === "query" ? request[first] : request.body;
  const segments = first === "path" || first === "query" ? rest : [first, ...rest];
  return segments.reduce<unknown>((node, segment) => (node as Record<string, unknown> | undefined)?.[segment], start);
}

/** Requests that were answered 500 or pointed elsewhere before their fix; raw JSON bodies. */
const FOUND_BY_FUZZING: {
  name: string;
  method: "get" | "post" | "patch";
  path: string;
  body?: string;
  pointer: string;
}[] = [
  { name: "U+0000 in a query parameter", method: "get", path: "/courses?q=a%00b", pointer: "/query/q" },
  { name: "U+0000 in a path id", method: "get", path: "/institutions/a%00b", pointer: "/path/id" },
  {
    name: "U+0000 in free-form metadata",
    method: "post",
    path: "/datasets",
    body: '{"label":"x","metadata":{"a":"\\u0000"}}',
    pointer: "/metadata/a",
  },
  {
    name: "a lone surrogate in a body string",
    method: "post",
    path: "/datasets",
    body: '{"label":"\\ud800x"}',
    pointer: "/label",
  },
  {
    name: "malformed percent-encoding in a path id",
    method: "get",
    path: "/institutions/%E0%A4%A",
    pointer: "/path/id",
  },
  { name: "no body where one is required", method: "post", path: "/webhooks", pointer: "" },
  {
    name: "an unknown member named with / and ~",
    method: "post",
    path: "/datasets",
    body: '{"label":"x","a/b~c":1}',
    pointer: "/a~1b~0c",
  },
  {
    name: "a recordCount beyond the database's integer",
    method: "post",
    path: "/datasets",
    body: '{"label":"x","recordCount":2147483648}',
    pointer: "/recordCount",
  },
  {
    name: "an empty sourceCourseId",
    method: "post",
    path: "/equivalencies",
    body: '{"sourceCourseId":"","targetInstitutionId":"inst_110635"}',
    pointer: "/sourceCourseId",
  },
  {
    name: "an empty targetCourseId",
    method: "patch",
    path: "/equivalencies/{equivalency}",
    body: '{"targetCourseId":""}',
    pointer: "/targetCourseId",
  },
  { name: "limit in hexadecimal", method: "get", path: "/institutions?limit=0x10", pointer: "/query/limit" },
  { name: "limit with an exponent", method: "get", path: "/courses?limit=1e1", pointer: "/query/limit" },
  { name: "limit with a plus sign", method: "get", path: "/equivalencies?limit=%2B5", pointer: "/query/limit" },
  { name: "limit with a leading space", method: "get", path: "/datasets?limit=%205", pointer: "/query/limit" },
  { name: "limit with a decimal point", method: "get", path: "/webhooks?limit=5.0", pointer: "/query/limit" },
  {
    name: "an offset beyond the largest safe integer",
    method: "get",
    path: "/institutions?offset=99999999999999999999",
    pointer: "/query/offset",
  },
  {
    name: "an offset that Number() rounds",
    method: "get",
    path: "/courses?offset=9007199254740993",
    pointer: "/query/offset",
  },
  {
    name: "a version in exponent notation",
    method: "get",
    path: "/equivalencies/{equivalency}/versions/1e3",
    pointer: "/path/version",
  },
  {
    name: "a version beyond the largest safe integer",
    method: "get",
    path: "/equivalencies/{equivalency}/versions/99999999999999999999",
    pointer: "/path/version",
  },
  { name: "a megabyte of [", method: "post", path: "/courses", body: "[".repeat(1_000_000), pointer: "/0".repeat(64) },
  {
    name: "free-form metadata nested 100 deep",
    method: "post",
    path: "/datasets",
    body: `{"label":"x","metadata":{"a":${"[".repeat(100)}${"]".repeat(100)}}}`,
    pointer: `/metadata/a${"/0".repeat(62)}`,
  },
  {
    name: "a number beyond the range of a double",
    method: "post",
    path: "/datasets",
    body: '{"label":"x","metadata":{"a":[1,-1e400]}}',
    pointer: "/metadata/a/1",
  },
  {
    name: "a course code of white space alone",
    method: "post",
    path: "/courses",
    body: '{"institutionId":"inst_122977","code":" \\t ","title":"x","credits":1,"level":"lower"}',
    pointer: "/code",
  },
  {
    name: "a target code of white space alone",
    method: "patch",
    path: "/equivalencies/{equivalency}",
    body: '{"targetCode":"   "}',
    pointer: "/targetCode",
  },
];

describe("fuzz: every operation against the document", function () {
  // A property sends `runs` requests, and shrinks a failure with more.
  this.timeout(60_000 + runs * 1_000);
  let t: TestApp;
  let receiver: Receiver;
  let records: Records;
  let requests: RequestArbitraries;
  let adminUserToken: string;
  /** Operations for people only (members, the audit log, sign-in settings) take an admin user's token; the rest a key. */
  const credentialFor = (operation: { method: string; path: string }) => {
    const declared = (document.paths?.[operation.path] as Record<string, Record<string, unknown>> | undefined)?.[
      operation.method
    ]?.["x-credential-kinds"] as string[] | undefined;
    return declared && !declared.includes("api_key") ? adminUserToken : t.keys.live;
  };

  before(async () => {
    // No rate limit and no dispatcher: the fuzzer sends thousands of requests and registers random URLs.
    t = await createTestApp({
      SVC_RATE_LIMIT_BURST: "1000000",
      SVC_RATE_LIMIT_ORG_BURST: "1000000",
      SVC_WEBHOOK_DISPATCHER: "off",
    });
    receiver = await Receiver.start();
    records = await seedRecords(t, receiver);
    requests = new RequestArbitraries(document, recordHints(records));
    adminUserToken = (await createUserWithToken(t, "admin")).token;
  });
  after(async () => {
    await receiver?.close();
    await t?.close();
  });

  for (const operation of operationsOf(document)) {
    describe(operation.operationId, () => {
      it("answers schema-valid requests below 500, on the document", async () => {
        await assertProperty(`${operation.operationId} valid`, requests.valid(operation), async (request) => {
          const response = await send(t, operation, request, credentialFor(operation));
          const context = `${describeRequest(operation, request)} -> ${response.status} ${JSON.stringify(response.body)}`;
          expect(response.status, context).to.be.below(500);
          await expectContract(response);
          if (response.status === 400) {
            const unexplained = pointers(response).filter((pointer) => !explainedRefusal(request, pointer));
            expect(unexplained, `a valid request refused as invalid: ${context}`).to.deep.equal([]);
          }
        });
      });

      it("answers a request broken at one place 400, pointing at it", async () => {
        await assertProperty(
          `${operation.operationId} broken`,
          requests.broken(operation),
          async ({ request, breaks, pointer }) => {
            const response = await send(t, operation, request, credentialFor(operation));
            const context = `${breaks} at "${pointer}": ${describeRequest(operation, request)} -> ${response.status} ${JSON.stringify(response.body)}`;
            expect(response.status, context).to.equal(400);
            await expectContract(response, 400);
            expectProblem(response, "validation-failed");
            expect(pointers(response), context).to.include(pointer);
          },
        );
      });
    });
  }

  describe("cases the fuzzing found, kept as examples", () => {
    for (const found of FOUND_BY_FUZZING) {
      it(`${found.name}: 400 at "${found.pointer}"`, async () => {
        const path = found.path.replace("{equivalency}", records.equivalencies[0]);
        let call = t.http[found.method](`/api/v1${path}`).set(bearer(t.keys.live));
        if (found.body !== undefined) call = call.set("Content-Type", "application/json").send(found.body);
        const response = await call;
        await expectContract(response, 400);
        expectProblem(response, "validation-failed");
        expect(pointers(response)).to.include(found.pointer);
      });
    }
  });

  // Mocha runs a suite's own tests before its nested suites; this one must run last.
  describe("afterwards", () => {
    it("every list and every export of what the fuzzing wrote is on the document", async () => {
      const get = (path: string) => t.http.get(`/api/v1${path}`).set(bearer(t.keys.live));
      for (const list of [
        "institutions",
        "courses",
        "equivalencies",
        "datasets",
        "webhooks",
        "keys",
        `webhooks/${records.receiverWebhook}/deliveries`,
      ]) {
        await expectContract(await get(`/${list}?limit=100`), 200);
      }
      await expectContract(await get("/equivalencies?limit=100&expand=course"), 200);
      for (const [resource, formats] of [
        ["equivalencies", ["csv", "json", "ctdl"]],
        ["courses", ["csv", "json"]],
        ["institutions", ["csv", "json"]],
      ] as const) {
        for (const format of formats)
          await expectContract(await get(`/exports?resource=${resource}&format=${format}`), 200);
      }
    });
  });
});

function pointers(response: Response): string[] {
  return ((response.body.errors ?? []) as { pointer: string }[]).map((error) => error.pointer);
}
