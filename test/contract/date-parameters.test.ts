// Every date and date-time parameter of the document, found in the document itself, answers 400 at
// its pointer for a value the format's text allows but no calendar or database holds (year 0000, a
// leap second, 30 February, an offset without minutes), and serves the bounds 1900 and 9999; dates
// in bodies are held to the same formats, never a 500.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { createUserWithToken } from "../helpers/people.ts";
import { endingStreams } from "../helpers/sse.ts";
import { specOperations } from "../helpers/spec-operations.ts";

type Format = "date" | "date-time";

const OUT_OF_RANGE: Record<Format, string[]> = {
  "date-time": [
    "0000-01-01T00:00:00Z",
    "1899-12-31T23:59:59Z",
    "2016-12-31T23:59:60Z",
    "2025-02-30T00:00:00Z",
    "2025-01-01T24:00:00Z",
    "2025-01-01T00:00:00+01",
  ],
  date: ["0000-01-01", "1899-12-31", "2025-02-30", "2023-02-29"],
};
const BOUNDS: Record<Format, string[]> = {
  "date-time": ["1900-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2024-02-29T12:00:00.123456+05:30"],
  date: ["1900-01-01", "9999-12-31", "2024-02-29"],
};

interface DateParameter {
  operationId: string;
  method: string;
  path: string;
  name: string;
  in: string;
  format: Format;
}

/** The document's parameters whose schema (or whose items' schema) is a date or date-time. */
function dateParameters(): DateParameter[] {
  const found: DateParameter[] = [];
  for (const operation of specOperations()) {
    for (const parameter of operation.parameters) {
      const schema = parameter.schema as { format?: string; items?: { format?: string } };
      const format = schema.format ?? schema.items?.format;
      if (format !== "date" && format !== "date-time") continue;
      found.push({ ...operation, name: parameter.name, in: parameter.in, format });
    }
  }
  return found;
}

const pointersOf = (body: { errors?: { pointer: string }[] }) => (body.errors ?? []).map((e) => e.pointer);

describe("inputs: date and date-time parameters of the document, bounded", () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
  });
  after(() => t.close());

  const parameters = dateParameters();

  it("the document has the date parameters this test knows of (updatedSince on /courses and /equivalencies, since on /events and /events/stream)", () => {
    const named = parameters.map((p) => `${p.operationId} ${p.in} ${p.name}`);
    for (const expected of [
      "listCourses query updatedSince",
      "listEquivalencies query updatedSince",
      "listEvents query since",
      "streamEvents query since",
    ])
      expect(named).to.include(expected);
  });

  /** The parameter's request: the value in its place, ids filled with a placeholder; a user's token where keys are refused. */
  async function send(parameter: DateParameter, value: string) {
    const path = parameter.path.replace(/\{[^}]+\}/g, "x");
    const query = parameter.in === "query" ? `?${parameter.name}=${encodeURIComponent(value)}` : "";
    const url = `/api/v1${path}${query}`;
    const request = (token: string) => {
      // A stream that opens is ended at once (endingStreams): it proved the value was taken.
      const call = t.http[parameter.method as "get"](url)
        .set({ ...bearer(token), Accept: "*/*" })
        .buffer(true)
        .parse(endingStreams(t.app));
      if (parameter.in === "header") call.set(parameter.name, value);
      return call;
    };
    const response = await request(t.keys.live);
    // Operations for people (the audit log) refuse keys: a fresh admin's token (tokens live minutes).
    return response.status === 403 ? request((await createUserWithToken(t, "admin")).token) : response;
  }

  for (const parameter of parameters) {
    const pointer = `/${parameter.in}/${parameter.name}`;
    it(`${parameter.operationId}: 400 at ${pointer} for a ${parameter.format} no calendar holds; the bounds are served`, async () => {
      for (const value of OUT_OF_RANGE[parameter.format]) {
        const response = await send(parameter, value);
        expect(response.status, `${value}: ${JSON.stringify(response.body)}`).to.equal(400);
        await expectContract(response, 400);
        expect(pointersOf(response.body), value).to.include(pointer);
      }
      for (const value of BOUNDS[parameter.format]) {
        const response = await send(parameter, value);
        expect(response.status, `${value}: ${JSON.stringify(response.body)}`).to.be.below(500);
        expect(pointersOf(typeof response.body === "object" ? response.body : {}), value).not.to.include(pointer);
      }
    });
  }

  it("dates in bodies are held to the same bounds: 400 at the field (createEquivalency, createTransferEvaluation), never 500", async () => {
    const course = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.live))
      .send({ institutionId: "inst_122977", code: "MATH 7", title: "Calculus", credits: 4, level: "lower" });
    expect(course.status, JSON.stringify(course.body)).to.equal(201);
    const sourceCourseId = course.body.data[0].id as string;
    for (const effectiveFrom of OUT_OF_RANGE.date) {
      const response = await t.http.post("/api/v1/equivalencies").set(bearer(t.keys.live)).send({
        sourceCourseId,
        targetInstitutionId: "inst_110635",
        targetCode: "MATH 1A",
        effectiveFrom,
      });
      await expectContract(response, 400);
      expect(pointersOf(response.body), effectiveFrom).to.include("/effectiveFrom");
    }
    for (const bad of OUT_OF_RANGE.date) {
      const response = await t.http
        .post("/api/v1/transfer-evaluations")
        .set(bearer(t.keys.live))
        .send({
          targetInstitutionId: "inst_110635",
          asOf: bad,
          courses: [{ courseId: sourceCourseId, grade: "A", completedOn: bad }],
        });
      expect(response.status, `${bad}: ${JSON.stringify(response.body)}`).to.equal(400);
      await expectContract(response, 400);
      expect(pointersOf(response.body), bad).to.include.members(["/asOf", "/courses/0/completedOn"]);
    }
  });
});
