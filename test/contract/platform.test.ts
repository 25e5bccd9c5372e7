// Request handling every operation shares: credentials, errors, limits,
// negotiation, request ids, and the operational endpoints.
import { expect } from "chai";
import { Writable } from "node:stream";
import supertest from "supertest";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { loadConfig } from "../../src/kernel/config.ts";
import { NotImplementedError, ProblemError } from "../../src/kernel/errors.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { SPEC_PATH } from "../../src/kernel/document.ts";
import fs from "node:fs";
import path from "node:path";

describe("platform: authentication", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("401 without a credential, with WWW-Authenticate", async () => {
    const response = await t.http.get("/api/v1/institutions");
    await expectContract(response, 401);
    expectProblem(response, "unauthenticated");
    expect(response.headers["www-authenticate"]).to.match(/^Bearer realm=/);
  });

  for (const [label, header] of [
    ["a malformed header", "Token abc"],
    ["a malformed key", "Bearer svc_live_short"],
    ["an unknown key", `Bearer svc_live_${"A".repeat(40)}`],
    ["a foreign token", "Bearer sk_live_123"],
  ]) {
    it(`401 for ${label}, with error="invalid_…"`, async () => {
      const response = await t.http.get("/api/v1/institutions").set("Authorization", header);
      await expectContract(response, 401);
      expect(response.headers["www-authenticate"]).to.match(/error="invalid_(token|request)"/);
    });
  }

  it("403 when the credential lacks the operation's scope", async () => {
    const response = await t.http.post("/api/v1/keys").set(bearer(t.keys.liveReadOnly)).send({});
    await expectContract(response, 403);
    expectProblem(response, "forbidden");
    expect(response.body.detail).to.contain("write:contribute");
  });

  it("the public sandbox key reads the sandbox and cannot write", async () => {
    const read = await t.http.get("/api/v1/institutions").set(bearer(t.config.publicSandboxKey));
    await expectContract(read, 200);
    const write = await t.http.post("/api/v1/keys").set(bearer(t.config.publicSandboxKey)).send({});
    await expectContract(write, 403);
  });

  it("the public sandbox key reads what any organization wrote to the sandbox, as the document says", async () => {
    await loadInstitutions(t.database.prisma, "sandbox");
    const written = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.sandbox))
      .send({ institutionId: "inst_122977", code: "PRIV 1", title: "Written by acme", credits: 3, level: "lower" });
    await expectContract(written, 201);
    const read = await t.http.get(`/api/v1/courses/${written.body.data[0].id}`).set(bearer(t.config.publicSandboxKey));
    await expectContract(read, 200);
    expect(read.body.data.title).to.equal("Written by acme");
    const document = JSON.parse(
      fs.readFileSync(path.resolve(import.meta.dirname, "../../generated/openapi.json"), "utf8"),
    );
    const described = [document.info.description, document.components.securitySchemes.ApiKeyAuth.description];
    for (const text of described) {
      expect(text).to.not.match(/seeded (sandbox )?data and nothing else/);
      expect(text).to.match(/every\s+sandbox record/);
    }
  });

  it("every response carries X-Request-Id, echoing a safe client value", async () => {
    const response = await t.http.get("/api/v1/keys").set(bearer(t.keys.live)).set("X-Request-Id", "client-req-42");
    expect(response.headers["x-request-id"]).to.equal("client-req-42");
    const generated = await t.http
      .get("/api/v1/keys")
      .set(bearer(t.keys.live))
      .set("X-Request-Id", "bad value with spaces");
    expect(generated.headers["x-request-id"]).to.match(/^req_/);
  });
});

describe("platform: errors as problem+json", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SVC_BODY_LIMIT_BYTES: "2048" });
  });
  after(() => t.close());

  it("404 for an unknown path, inside and outside the API", async () => {
    for (const path of ["/api/v1/nothing-here", "/nothing-here"]) {
      const response = await t.http.get(path).set(bearer(t.keys.live));
      expect(response.status).to.equal(404);
      expectProblem(response, "not-found");
    }
  });

  it("405 with Allow for a known path and a wrong method", async () => {
    const response = await t.http.put("/api/v1/keys").set(bearer(t.keys.live)).send({});
    expect(response.status).to.equal(405);
    expectProblem(response, "method-not-allowed");
    expect(response.headers.allow).to.equal("GET, POST");
  });

  it("406 when Accept allows nothing the operation produces", async () => {
    const response = await t.http.get("/api/v1/keys").set(bearer(t.keys.live)).set("Accept", "text/html");
    await expectContract(response, 406);
    expectProblem(response, "not-acceptable");
  });

  it("415 for a body that is not JSON", async () => {
    const response = await t.http
      .post("/api/v1/keys")
      .set(bearer(t.keys.live))
      .set("Content-Type", "text/plain")
      .send("name=x");
    await expectContract(response, 415);
    expectProblem(response, "unsupported-media-type");
  });

  it("400 malformed-request for broken JSON", async () => {
    const response = await t.http
      .post("/api/v1/keys")
      .set(bearer(t.keys.live))
      .set("Content-Type", "application/json")
      .send('{"name": ');
    await expectContract(response, 400);
    expectProblem(response, "malformed-request");
  });

  it("413 for a body over the limit, and nothing is written", async () => {
    const before = await t.database.prisma.apiKey.count();
    const response = await t.http
      .post("/api/v1/keys")
      .set(bearer(t.keys.live))
      .send({ name: "x".repeat(5000) });
    await expectContract(response, 413);
    expectProblem(response, "payload-too-large");
    expect(await t.database.prisma.apiKey.count()).to.equal(before);
  });

  it("400 with a pointer for unknown fields, wrong types and values off an enum", async () => {
    const cases: [object, string][] = [
      [{ nickname: "x" }, "/nickname"],
      [{ name: 42 }, "/name"],
      [{ environment: "staging" }, "/environment"],
    ];
    for (const [body, pointer] of cases) {
      const response = await t.http.post("/api/v1/keys").set(bearer(t.keys.live)).send(body);
      await expectContract(response, 400);
      expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.include(pointer);
    }
  });

  for (const query of ["limit=0", "limit=101", "limit=ten", "offset=-1"]) {
    it(`400 for ${query}`, async () => {
      const response = await t.http.get(`/api/v1/keys?${query}`).set(bearer(t.keys.live));
      await expectContract(response, 400);
      expect(response.body.errors[0].pointer).to.match(/^\/query\/(limit|offset)$/);
    });
  }

  it("501 problem for an operation of the contract without an implementation", async () => {
    const thrown: unknown = new NotImplementedError("exportData");
    expect(thrown).to.be.instanceOf(ProblemError);
    expect((thrown as ProblemError).toProblem("req_1")).to.include({
      status: 501,
      type: "https://course-equivalency.org/problems/not-implemented",
    });
  });
});

describe("platform: rate limits", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SVC_RATE_LIMIT_BURST: "3", SVC_RATE_LIMIT_REFILL_PER_SECOND: "0.01" });
  });
  after(() => t.close());

  it("reports the bucket in headers and answers 429 with Retry-After when it is empty", async () => {
    const first = await t.http.get("/api/v1/keys").set(bearer(t.keys.live));
    expect(first.headers).to.include({ "x-ratelimit-limit": "3", "x-ratelimit-remaining": "2" });
    expect(Number(first.headers["x-ratelimit-reset"])).to.be.greaterThan(0);
    await t.http.get("/api/v1/keys").set(bearer(t.keys.live));
    await t.http.get("/api/v1/keys").set(bearer(t.keys.live));
    const limited = await t.http.get("/api/v1/keys").set(bearer(t.keys.live));
    await expectContract(limited, 429);
    expectProblem(limited, "rate-limited");
    expect(Number(limited.headers["retry-after"])).to.be.greaterThan(0);
    const otherKey = await t.http.get("/api/v1/keys").set(bearer(t.keys.sandbox));
    expect(otherKey.status).to.equal(200);
  });
});

describe("platform: 500s and logs", () => {
  it("answers a bare 500 problem without a stack, and logs never contain a key", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const t = await createTestApp();
    try {
      const config = loadConfig({ SVC_LOG_LEVEL: "info" });
      const app = await createApp({
        config,
        database: t.database,
        log: createLogger("info", sink),
        secrets: t.secrets,
      });
      const http = supertest(app.koa.callback());
      await http.get("/api/v1/keys").set(bearer(t.keys.live));
      await http.post("/api/v1/keys").set(bearer(t.keys.live)).send({ name: "logged" });

      const original = t.database.prisma.apiKey.findMany;
      t.database.prisma.apiKey.findMany = (() => Promise.reject(new Error("disk on fire at /secret/path"))) as never;
      try {
        const response = await http.get("/api/v1/keys").set(bearer(t.keys.live));
        expect(response.status).to.equal(500);
        expectProblem(response, "internal-error");
        expect(JSON.stringify(response.body)).to.not.contain("disk on fire").and.not.contain("at ");
      } finally {
        t.database.prisma.apiKey.findMany = original;
      }
      const log = lines.join("");
      expect(log).to.contain('"msg":"request"');
      expect(log).to.contain("disk on fire");
      expect(log).to.not.contain(t.keys.live);
      expect(log).to.not.contain(t.keys.live.slice(12));
    } finally {
      await t.close();
    }
  });
});

describe("operational endpoints", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("GET / points to the reference page and the API root, without credentials", async () => {
    const response = await t.http.get("/");
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ docs: "/docs", api: "/api/v1", openapi: "/api/v1/openapi.json" });
    expect((await t.http.get(response.body.docs)).status).to.equal(200);
  });

  it("/healthz and /readyz answer without credentials", async () => {
    expect((await t.http.get("/healthz")).body).to.deep.equal({ status: "ok" });
    const ready = await t.http.get("/readyz");
    expect(ready.status).to.equal(200);
    expect(ready.body.status).to.equal("ok");
  });

  it("serves the document as JSON and YAML, and a reference page from local assets", async () => {
    const json = await t.http.get("/api/v1/openapi.json");
    expect(json.status).to.equal(200);
    expect(json.body.openapi).to.equal("3.1.0");
    expect(json.body.info.version).to.equal(JSON.parse(fs.readFileSync(SPEC_PATH, "utf8")).info.version);
    const yaml = await t.http.get("/api/v1/openapi.yaml");
    expect(yaml.status).to.equal(200);
    expect(yaml.headers["content-type"]).to.contain("yaml");
    const docs = await t.http.get("/docs");
    expect(docs.status).to.equal(200);
    const assets = [...docs.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.every((a) => a.startsWith("/"))).to.equal(true, "no outside requests");
    for (const asset of assets) expect((await t.http.get(asset)).status, asset).to.equal(200);
  });
});
