// Inputs that once earned a 500, or were quietly misread: each now gets the 4xx
// problem that docs/api-guide.md's "Limits on what a request may hold" names.
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { expect } from "chai";
import type { Response } from "supertest";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { createServer } from "../../src/app/server.ts";

const pointers = (response: Response) =>
  (response.body.errors ?? []).map((error: { pointer: string }) => error.pointer);
const nested = (levels: number, inner = "1") => `${"[".repeat(levels)}${inner}${"]".repeat(levels)}`;

describe("inputs: the depth of JSON bodies", () => {
  let t: TestApp;
  const post = (path: string, body: string) =>
    t.http.post(`/api/v1${path}`).set(bearer(t.keys.live)).set("Content-Type", "application/json").send(body);
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("400 pointing at the first array beyond 64 levels, for a megabyte of [", async () => {
    const response = await post("/courses", "[".repeat(1_000_000));
    await expectContract(response, 400);
    expectProblem(response, "validation-failed");
    expect(response.body.errors).to.deep.equal([
      { pointer: "/0".repeat(64), message: "nests arrays and objects deeper than 64 levels" },
    ]);
  });

  it("accepts 64 levels and refuses 65, pointing through member names", async () => {
    // Objects: the body is level 1, metadata 2, "a/b" 3, "c~d" 4; the arrays in "e\"f" start at level 5.
    const body = (arrays: number) => `{"label":"deep","metadata":{"a/b":{"c~d":{"e\\"f":${nested(arrays)}}}}}`;
    const accepted = await post("/datasets", body(60));
    await expectContract(accepted, 201);
    const refused = await post("/datasets", body(61));
    await expectContract(refused, 400);
    expect(pointers(refused)).to.deep.equal([`/metadata/a~1b/c~0d/e"f${"/0".repeat(60)}`]);
    // Brackets inside strings are text, and commas move the pointer along.
    const inStrings = await post(
      "/datasets",
      `{"label":"${"[".repeat(100)}","metadata":{"x":["]]]]", ${nested(70)}]}}`,
    );
    await expectContract(inStrings, 400);
    expect(pointers(inStrings)).to.deep.equal([`/metadata/x/1${"/0".repeat(61)}`]);
  });

  it("400 for a number beyond the range of a double, instead of storing null", async () => {
    const response = await post("/datasets", '{"label":"huge","metadata":{"a":[1,-1e400]}}');
    await expectContract(response, 400);
    expect(pointers(response)).to.deep.equal(["/metadata/a/1"]);
    const credits = await post(
      "/courses",
      '{"institutionId":"inst_122977","code":"X 1","title":"x","credits":1e308,"level":"lower"}',
    );
    await expectContract(credits, 400);
    // This file's database holds no institutions: one validation pass reports the unknown one beside the number.
    expect(pointers(credits)).to.deep.equal(["/credits", "/institutionId"]);
  });
});

describe("inputs: integer parameters", () => {
  let t: TestApp;
  let equivalencyId: string;
  const get = (path: string) => t.http.get(`/api/v1${path}`).set(bearer(t.keys.live));

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const courses = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.live))
      .send({ institutionId: "inst_122977", code: "MATH 7", title: "Calculus", credits: 4, level: "lower" });
    const created = await t.http
      .post("/api/v1/equivalencies")
      .set(bearer(t.keys.live))
      .send({ sourceCourseId: courses.body.data[0].id, targetInstitutionId: "inst_110635", targetCode: "MATH 1A" });
    equivalencyId = created.body.data.id;
  });
  after(() => t.close());

  for (const limit of ["0x10", "1e1", "%2B5", "%205", "5%20", "5.0", "0b1", ""]) {
    it(`400 at /query/limit for limit=${limit}`, async () => {
      const response = await get(`/institutions?limit=${limit}`);
      await expectContract(response, 400);
      expectProblem(response, "validation-failed");
      expect(pointers(response)).to.deep.equal(["/query/limit"]);
    });
  }

  it("decimal digits are read as such, leading zeros included", async () => {
    const response = await get("/institutions?limit=05&offset=007");
    await expectContract(response, 200);
    expect(response.body.pagination).to.include({ limit: 5, offset: 7 });
  });

  it("400 at /query/offset beyond 2^53 - 1 on every list; 2^53 - 1 itself is an empty page", async () => {
    for (const list of [
      "institutions",
      "courses",
      "equivalencies",
      "datasets",
      "webhooks",
      "keys",
      "organizations/me",
    ]) {
      for (const offset of ["9007199254740992", "99999999999999999999", "1e20"]) {
        const response = await get(`/${list}?offset=${offset}`);
        await expectContract(response, 400);
        expect(pointers(response), `${list} ${offset}`).to.deep.equal(["/query/offset"]);
      }
    }
    const last = await get("/equivalencies?offset=9007199254740991");
    await expectContract(last, 200);
    expect(last.body.pagination).to.include({ offset: 9007199254740991, returned: 0, total: 1 });
  });

  it("404 for a version number the equivalency does not have, beyond the column's range included", async () => {
    for (const version of ["2", "2147483647", "2147483648", "99999999999", "9007199254740991"]) {
      const response = await get(`/equivalencies/${equivalencyId}/versions/${version}`);
      await expectContract(response, 404);
      expectProblem(response, "not-found");
      expect(response.body.detail).to.contain(`has no version ${version}`);
    }
    await expectContract(await get(`/equivalencies/${equivalencyId}/versions/1`), 200);
  });

  it("400 at /path/version for another notation or a number beyond 2^53 - 1", async () => {
    for (const version of ["1e3", "0x1", "%2B1", "1.0", "99999999999999999999"]) {
      const response = await get(`/equivalencies/${equivalencyId}/versions/${version}`);
      await expectContract(response, 400);
      expect(pointers(response), version).to.deep.equal(["/path/version"]);
    }
  });
});

describe("inputs: codes of white space alone", () => {
  let t: TestApp;
  let courseId: string;
  let equivalencyId: string;
  const post = (path: string, body: object) => t.http.post(`/api/v1${path}`).set(bearer(t.keys.live)).send(body);
  const course = (code: string) => ({
    institutionId: "inst_122977",
    code,
    title: "Course",
    credits: 3,
    level: "lower",
  });

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    courseId = (await post("/courses", course("  MATH   7 "))).body.data[0].id;
    equivalencyId = (
      await post("/equivalencies", {
        sourceCourseId: courseId,
        targetInstitutionId: "inst_110635",
        targetCode: "MATH 1A",
      })
    ).body.data.id;
  });
  after(() => t.close());

  it("a course code is stored trimmed with white space collapsed", async () => {
    const stored = await t.http.get(`/api/v1/courses/${courseId}`).set(bearer(t.keys.live));
    expect(stored.body.data.code).to.equal("MATH 7");
  });

  it("400 at /code for a course code of white space alone, single or in a batch; nothing is stored", async () => {
    const before = await t.database.prisma.course.count();
    for (const code of [" ", " \t\n ", "\u00a0\u3000"]) {
      const single = await post("/courses", course(code));
      await expectContract(single, 400);
      expect(single.body.errors, JSON.stringify(code)).to.deep.equal([
        { pointer: "/code", message: "must contain a character other than white space" },
      ]);
    }
    const batch = await post("/courses", [course("CS 1"), course("   ")]);
    await expectContract(batch, 400);
    expect(pointers(batch)).to.deep.equal(["/1/code"]);
    expect(await t.database.prisma.course.count()).to.equal(before);
  });

  it("400 at /targetCode for a target code of white space alone, on POST and PATCH", async () => {
    const created = await post("/equivalencies", {
      sourceCourseId: courseId,
      targetInstitutionId: "inst_110662",
      targetCode: "   ",
    });
    await expectContract(created, 400);
    expect(pointers(created)).to.deep.equal(["/targetCode"]);
    for (const targetCode of ["  ", ""]) {
      const patched = await t.http
        .patch(`/api/v1/equivalencies/${equivalencyId}`)
        .set(bearer(t.keys.live))
        .send({ targetCode });
      await expectContract(patched, 400);
      expect(pointers(patched)).to.deep.equal(["/targetCode"]);
    }
    const current = await t.http.get(`/api/v1/equivalencies/${equivalencyId}`).set(bearer(t.keys.live));
    expect(current.body.data).to.include({ targetCode: "MATH 1A", version: 1 });
  });
});

describe("inputs: the OAuth token form", () => {
  let t: TestApp;
  const token = (body: string, type = "application/x-www-form-urlencoded") =>
    t.http.post("/oauth/token").set("Content-Type", type).send(body);
  const expectInvalidRequest = (response: Response) => {
    expect(response.status, JSON.stringify(response.body)).to.equal(400);
    expectProblem(response, "validation-failed");
    expect(response.body.error).to.equal("invalid_request");
  };
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("400 invalid_request for malformed percent-encoding in the body", async () => {
    for (const bad of ["%ZZ", "%", "%E0%A4%A", "%ED%A0%80", "%FF"]) {
      expectInvalidRequest(await token(`grant_type=client_credentials&client_id=${bad}&client_secret=x`));
      expectInvalidRequest(await token(`grant_type=client_credentials&client_id=a&client_secret=b&sc${bad}ope=x`));
    }
  });

  it("400 invalid_request for U+0000, in the body or in HTTP Basic credentials", async () => {
    expectInvalidRequest(await token("grant_type=client_credentials&client_id=a%00b&client_secret=x"));
    expectInvalidRequest(await token("grant_type=client_credentials&client_id=a\u0000b&client_secret=x"));
    expectInvalidRequest(
      await token('{"grant_type":"client_credentials","client_id":"a\\u0000","client_secret":"x"}', "application/json"),
    );
    for (const credentials of ["a%00:x", "%ZZ:x", "a:%E0%A4%A"]) {
      const basic = await t.http
        .post("/oauth/token")
        .set("Authorization", `Basic ${Buffer.from(credentials).toString("base64")}`)
        .type("form")
        .send("grant_type=client_credentials");
      expectInvalidRequest(basic);
    }
  });

  it("400 invalid_request for a lone surrogate or a field that is not text in a JSON body", async () => {
    expectInvalidRequest(
      await token('{"grant_type":"client_credentials","client_id":"\\ud800","client_secret":"x"}', "application/json"),
    );
    expectInvalidRequest(
      await token('{"grant_type":"client_credentials","client_id":{"a":1},"client_secret":"x"}', "application/json"),
    );
  });

  it("well-formed requests are still judged on their credentials", async () => {
    const response = await token("grant_type=client_credentials&client_id=a+b%20c&client_secret=x%2By");
    expect(response.status).to.equal(401);
    expect(response.body.error).to.equal("invalid_client");
  });
});

describe("inputs: header fields over the parser's limit, on a real server", () => {
  let t: TestApp;
  let server: http.Server;
  let port: number;
  before(async () => {
    t = await createTestApp();
    server = createServer(t.app.koa).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  /** Sends raw bytes and reads until the server closes the connection. */
  const exchange = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => socket.write(request));
      let answer = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk) => (answer += chunk));
      socket.on("close", () => resolve(answer));
      socket.on("error", reject);
    });
  const parse = (answer: string) => {
    const [head, body] = answer.split("\r\n\r\n");
    const [statusLine, ...lines] = head.split("\r\n");
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
    );
    return { statusLine, headers, problem: JSON.parse(body) };
  };

  it("431 request-header-too-large as problem+json with a request id, and the connection closed", async () => {
    const oversized = `GET /api/v1/institutions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${t.keys.live}\r\nX-Padding: ${"a".repeat(http.maxHeaderSize)}\r\n\r\n`;
    const { statusLine, headers, problem } = parse(await exchange(oversized));
    expect(statusLine).to.equal("HTTP/1.1 431 Request Header Fields Too Large");
    expect(headers).to.include({ "content-type": "application/problem+json", connection: "close" });
    expect(problem).to.deep.equal({
      type: "https://course-equivalency.org/problems/request-header-too-large",
      title: "Request header fields too large",
      status: 431,
      detail: `The request line and header fields are larger than the ${http.maxHeaderSize} bytes the server accepts.`,
      requestId: headers["x-request-id"],
    });
    expect(Number(headers["content-length"])).to.equal(Buffer.byteLength(JSON.stringify(problem)));
  });

  it("a request just under the limit is answered as usual", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/institutions`, {
      headers: { ...bearer(t.keys.live), "X-Padding": "a".repeat(http.maxHeaderSize - 2048) },
    });
    expect(response.status).to.equal(200);
  });

  it("400 malformed-request as problem+json for bytes that are not HTTP", async () => {
    const { statusLine, problem } = parse(await exchange("NOT HTTP AT ALL\r\n\r\n"));
    expect(statusLine).to.equal("HTTP/1.1 400 Bad Request");
    expect(problem).to.include({ type: "https://course-equivalency.org/problems/malformed-request", status: 400 });
  });
});
