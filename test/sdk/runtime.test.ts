// The SDK's runtime against a scripted fetch and a fake clock: error mapping,
// retries, token handling and paging.
import { expect } from "chai";
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  createClient,
  NotFoundError,
  PermissionError,
  NotStewardError,
  PreconditionFailedError,
  RateLimitError,
  ValidationError,
} from "../../sdk/src/index.ts";
import { fakeClock, fakeServer, json, problem, type Answer } from "./fakes.ts";

const BASE_URL = "https://api.example.test/api/v1";
const INSTITUTION = {
  id: "inst_110635",
  ipedsId: "110635",
  name: "UC Berkeley",
  city: "Berkeley",
  state: "CA",
  type: "four_year_public",
  system: null,
  source: "direct",
};

function setup(answers: Answer[] = [], options: { maxRetries?: number; maxRetryDelayMs?: number } = {}) {
  const server = fakeServer(answers);
  const clock = fakeClock();
  const client = createClient({ baseUrl: BASE_URL, apiKey: "svc_live_test", fetch: server.fetch, clock, ...options });
  return { server, clock, client };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("SDK runtime: requests and errors", () => {
  it("sends the API key and returns the record", async () => {
    const { server, client } = setup([json(200, { data: INSTITUTION })]);
    expect(await client.institutions.get("inst_110635")).to.deep.equal(INSTITUTION);
    expect(server.requests[0].url.href).to.equal(`${BASE_URL}/institutions/inst_110635`);
    expect(server.requests[0].headers.get("authorization")).to.equal("Bearer svc_live_test");
  });

  const cases: [number, string, Function][] = [
    [400, "validation-failed", ValidationError],
    [400, "malformed-request", ValidationError],
    [401, "unauthenticated", AuthenticationError],
    [403, "forbidden", PermissionError],
    [403, "not-steward", NotStewardError],
    [404, "not-found", NotFoundError],
    [409, "invalid-transition", ConflictError],
    [412, "precondition-failed", PreconditionFailedError],
    [429, "rate-limited", RateLimitError],
    [500, "internal-error", ApiError],
    [501, "not-implemented", ApiError],
  ];
  for (const [status, slug, ErrorClass] of cases) {
    it(`maps ${status} ${slug} to ${ErrorClass.name}`, async () => {
      const { client } = setup([problem(status, slug)], { maxRetries: 0 });
      const error = (await rejection(client.institutions.get("inst_1"))) as ApiError;
      expect(error).to.be.instanceOf(ErrorClass).and.instanceOf(ApiError);
      expect(error.constructor).to.equal(ErrorClass);
      expect(error).to.include({
        status,
        type: `https://course-equivalency.org/problems/${slug}`,
        code: slug,
        title: slug,
        detail: `a ${slug} problem`,
        requestId: `req_${slug}`,
      });
      expect(error.name).to.equal(ErrorClass.name);
      expect((error.body as { status: number }).status).to.equal(status);
    });
  }

  it("carries the problem's extras: errors[], existingId, retryAfter", async () => {
    const errors = [{ pointer: "/0/cipCode", message: "unknown CIP code" }];
    const { client } = setup(
      [
        problem(400, "validation-failed", { errors }),
        problem(409, "conflict", { existingId: "eq_1" }),
        problem(429, "rate-limited", {}, { "Retry-After": "7" }),
      ],
      { maxRetries: 0 },
    );
    const validation = (await rejection(client.courses.upsert([]))) as ValidationError;
    expect(validation.errors).to.deep.equal(errors);
    const conflict = (await rejection(
      client.equivalencies.create({ sourceCourseId: "crs_1", targetInstitutionId: "inst_1" }),
    )) as ConflictError;
    expect(conflict.existingId).to.equal("eq_1");
    const limited = (await rejection(client.institutions.get("inst_1"))) as RateLimitError;
    expect(limited.retryAfter).to.equal(7);
  });

  it("makes an ApiError of a non-JSON error page, with the request id from the header", async () => {
    const { client } = setup([
      new Response("<h1>Bad gateway</h1>", {
        status: 502,
        statusText: "Bad Gateway",
        headers: { "X-Request-Id": "req_proxy" },
      }),
    ]);
    const error = (await rejection(client.institutions.get("inst_1"))) as ApiError;
    expect(error.constructor).to.equal(ApiError);
    expect(error).to.include({
      status: 502,
      type: "about:blank",
      title: "Bad Gateway",
      detail: "<h1>Bad gateway</h1>",
      requestId: "req_proxy",
    });
  });

  it("sends If-Match and Idempotency-Key when asked, and nothing else of the sort", async () => {
    const { server, client } = setup([
      json(200, { data: { id: "eq_1" } }),
      json(201, { data: { id: "eq_2" } }),
      json(201, { data: [], summary: {} }),
    ]);
    await client.equivalencies.update("eq_1", { status: "accepted" }, { ifMatch: '"eq_1.v1"' });
    await client.equivalencies.create(
      { sourceCourseId: "crs_1", targetInstitutionId: "inst_1" },
      { idempotencyKey: "k-1" },
    );
    await client.courses.upsert(
      { institutionId: "inst_1", code: "A 1", title: "A", credits: 3, level: "lower" },
      { dryRun: true },
    );
    expect(
      server.requests.map((r) => [r.method, r.headers.get("if-match"), r.headers.get("idempotency-key")]),
    ).to.deep.equal([
      ["PATCH", '"eq_1.v1"', null],
      ["POST", null, "k-1"],
      ["POST", null, null],
    ]);
    expect(server.requests[2].url.search).to.equal("?dryRun=true");
    expect(JSON.parse(server.requests[0].body)).to.deep.equal({ status: "accepted" });
  });

  it("keeps the raw openapi-fetch client, which answers { data, error, response } without throwing", async () => {
    const { client } = setup([problem(404, "not-found")]);
    const { data, error, response } = await client.raw.GET("/institutions/{id}", {
      params: { path: { id: "inst_1" } },
    });
    expect(data).to.equal(undefined);
    expect(error?.type).to.match(/not-found$/);
    expect(response.status).to.equal(404);
  });
});

describe("SDK runtime: retries", () => {
  it("retries a GET on 429 and 503, waiting for Retry-After or backing off", async () => {
    const { server, clock, client } = setup([
      problem(429, "rate-limited", {}, { "Retry-After": "3" }),
      problem(503, "unavailable"),
      json(200, { data: INSTITUTION }),
    ]);
    expect(await client.institutions.get("inst_110635")).to.deep.equal(INSTITUTION);
    expect(server.requests).to.have.length(3);
    expect(clock.slept).to.deep.equal([3000, 1000]);
  });

  it("gives up after maxRetries and throws the last answer", async () => {
    const limited = () => problem(429, "rate-limited", {}, { "Retry-After": "1" });
    const { server, clock, client } = setup([limited(), limited(), limited()]);
    const error = await rejection(client.institutions.get("inst_1"));
    expect(error).to.be.instanceOf(RateLimitError);
    expect(server.requests).to.have.length(3);
    expect(clock.slept).to.deep.equal([1000, 1000]);
  });

  it("honours maxRetries and does not wait longer than maxRetryDelayMs", async () => {
    const once = setup([problem(503, "unavailable"), problem(503, "unavailable")], { maxRetries: 1 });
    expect(await rejection(once.client.institutions.get("inst_1"))).to.be.instanceOf(ApiError);
    expect(once.server.requests).to.have.length(2);
    const patient = setup([problem(429, "rate-limited", {}, { "Retry-After": "3600" })], { maxRetryDelayMs: 60_000 });
    expect(await rejection(patient.client.institutions.get("inst_1"))).to.be.instanceOf(RateLimitError);
    expect(patient.clock.slept).to.deep.equal([]);
  });

  it("never retries a POST, PATCH or DELETE without an Idempotency-Key", async () => {
    const { server, clock, client } = setup([
      problem(503, "unavailable"),
      problem(429, "rate-limited", {}, { "Retry-After": "1" }),
      problem(503, "unavailable"),
    ]);
    expect(
      await rejection(client.equivalencies.create({ sourceCourseId: "crs_1", targetInstitutionId: "inst_1" })),
    ).to.be.instanceOf(ApiError);
    expect(await rejection(client.equivalencies.update("eq_1", { status: "accepted" }))).to.be.instanceOf(
      RateLimitError,
    );
    expect(await rejection(client.keys.revoke("key_1"))).to.be.instanceOf(ApiError);
    expect(server.requests.map((r) => r.method)).to.deep.equal(["POST", "PATCH", "DELETE"]);
    expect(clock.slept).to.deep.equal([]);
  });

  it("retries a POST that carries an Idempotency-Key, with the same key and body", async () => {
    const { server, clock, client } = setup([
      problem(503, "unavailable", {}, { "Retry-After": "2" }),
      json(201, { data: { id: "eq_1" } }),
    ]);
    const created = await client.equivalencies.create(
      { sourceCourseId: "crs_1", targetInstitutionId: "inst_1" },
      { idempotencyKey: "key-42" },
    );
    expect(created.id).to.equal("eq_1");
    expect(server.requests.map((r) => [r.headers.get("idempotency-key"), JSON.parse(r.body)])).to.deep.equal([
      ["key-42", { sourceCourseId: "crs_1", targetInstitutionId: "inst_1" }],
      ["key-42", { sourceCourseId: "crs_1", targetInstitutionId: "inst_1" }],
    ]);
    expect(clock.slept).to.deep.equal([2000]);
  });
});

describe("SDK runtime: OAuth client credentials", () => {
  const token = (value: string, expiresIn = 3600) =>
    json(200, { access_token: value, token_type: "Bearer", expires_in: expiresIn, scope: "read:public" });

  function oauthSetup(answers: Answer[]) {
    const server = fakeServer(answers);
    const clock = fakeClock();
    const client = createClient({
      baseUrl: BASE_URL,
      oauth: { clientId: "cli_1", clientSecret: "s3cret", scope: "read:public" },
      fetch: server.fetch,
      clock,
    });
    return { server, clock, client };
  }

  it("fetches a token from the origin with HTTP Basic, reuses it, and renews it before expiry", async () => {
    const { server, clock, client } = oauthSetup([
      token("tok_1"),
      json(200, { data: INSTITUTION }),
      json(200, { data: INSTITUTION }),
      token("tok_2"),
      json(200, { data: INSTITUTION }),
    ]);
    await client.institutions.get("inst_1");
    await client.institutions.get("inst_1");
    clock.advance(3600_000 - 30_000); // inside the renewal margin
    await client.institutions.get("inst_1");
    const [tokenRequest] = server.requests;
    expect(tokenRequest.method).to.equal("POST");
    expect(tokenRequest.url.href).to.equal("https://api.example.test/oauth/token");
    expect(tokenRequest.headers.get("authorization")).to.equal(
      `Basic ${Buffer.from("cli_1:s3cret").toString("base64")}`,
    );
    expect(Object.fromEntries(new URLSearchParams(tokenRequest.body))).to.deep.equal({
      grant_type: "client_credentials",
      scope: "read:public",
    });
    expect(server.requests.map((r) => r.headers.get("authorization"))).to.deep.equal([
      tokenRequest.headers.get("authorization"),
      "Bearer tok_1",
      "Bearer tok_1",
      tokenRequest.headers.get("authorization"),
      "Bearer tok_2",
    ]);
  });

  it("renews the token on a 401 and sends the request once more, POST included", async () => {
    const { server, client } = oauthSetup([
      token("tok_old"),
      problem(401, "unauthenticated"),
      token("tok_new"),
      json(201, { data: { id: "eq_1" } }),
    ]);
    const created = await client.equivalencies.create({ sourceCourseId: "crs_1", targetInstitutionId: "inst_1" });
    expect(created.id).to.equal("eq_1");
    expect(
      server.requests.map(
        (r) => `${r.method} ${r.url.pathname} ${r.headers.get("authorization")?.split(" ")[1].slice(0, 7)}`,
      ),
    ).to.deep.equal([
      "POST /oauth/token Y2xpXzE",
      "POST /api/v1/equivalencies tok_old",
      "POST /oauth/token Y2xpXzE",
      "POST /api/v1/equivalencies tok_new",
    ]);
  });

  it("throws AuthenticationError when the client credentials are refused, and when a fresh token is refused too", async () => {
    const refused = oauthSetup([problem(401, "unauthenticated", { error: "invalid_client" })]);
    expect(await rejection(refused.client.institutions.get("inst_1"))).to.be.instanceOf(AuthenticationError);
    const revoked = oauthSetup([
      token("a"),
      problem(401, "unauthenticated"),
      token("b"),
      problem(401, "unauthenticated"),
    ]);
    expect(await rejection(revoked.client.institutions.get("inst_1"))).to.be.instanceOf(AuthenticationError);
    expect(revoked.server.requests).to.have.length(4);
  });

  it("shares one token request between concurrent calls", async () => {
    const { server, client } = oauthSetup([
      token("tok_1"),
      json(200, { data: INSTITUTION }),
      json(200, { data: INSTITUTION }),
      json(200, { data: INSTITUTION }),
    ]);
    await Promise.all([client.institutions.get("a"), client.institutions.get("b"), client.institutions.get("c")]);
    expect(server.requests.filter((r) => r.url.pathname === "/oauth/token")).to.have.length(1);
  });
});

describe("SDK runtime: paging", () => {
  const items = Array.from({ length: 5 }, (_, i) => ({ ...INSTITUTION, id: `inst_${i}` }));
  const pages = (request: { url: URL }) => {
    const limit = Number(request.url.searchParams.get("limit") ?? 25);
    const after = request.url.searchParams.get("after");
    const offset = Number(request.url.searchParams.get("offset") ?? 0);
    const start = (after ? Number(after.slice(1)) + 1 : 0) + offset;
    const data = items.slice(start, start + limit);
    const nextCursor = start + limit < items.length ? `c${start + limit - 1}` : null;
    return json(200, {
      data,
      pagination: { total: items.length, limit, offset, returned: data.length, nextCursor },
    });
  };

  it("awaits to the page the query asks for", async () => {
    const { server, client } = setup([pages]);
    const page = await client.institutions.list({ state: "CA", limit: 2, offset: 2 });
    expect(page.data.map((i) => i.id)).to.deep.equal(["inst_2", "inst_3"]);
    expect(page.pagination).to.deep.equal({ total: 5, limit: 2, offset: 2, returned: 2, nextCursor: "c3" });
    expect(server.requests[0].url.search).to.equal("?state=CA&limit=2&offset=2");
  });

  it("iterates every item of every page with for await by cursor, keeping the filters", async () => {
    const { server, client } = setup([pages, pages, pages]);
    const seen: string[] = [];
    for await (const institution of client.institutions.list({ state: "CA", limit: 2 })) seen.push(institution.id);
    expect(seen).to.deep.equal(["inst_0", "inst_1", "inst_2", "inst_3", "inst_4"]);
    expect(server.requests.map((r) => r.url.search)).to.deep.equal([
      "?state=CA&limit=2",
      "?state=CA&limit=2&after=c1",
      "?state=CA&limit=2&after=c3",
    ]);
  });

  it("iterates from an offset, then by cursor", async () => {
    const { server, client } = setup([pages, pages]);
    const seen: string[] = [];
    for await (const institution of client.institutions.list({ limit: 2, offset: 1 })) seen.push(institution.id);
    expect(seen).to.deep.equal(["inst_1", "inst_2", "inst_3", "inst_4"]);
    expect(server.requests.map((r) => r.url.search)).to.deep.equal(["?limit=2&offset=1", "?limit=2&after=c2"]);
  });

  it("collects with all(), walks pages with pages(), and stops early when the loop breaks", async () => {
    const { server, client } = setup([pages, pages, pages, pages]);
    expect((await client.equivalencies.list({ status: "accepted" }).all()).map((e) => e.id)).to.have.length(5);
    expect(server.requests[0].url.search).to.equal("?status=accepted&limit=100");
    const sizes: number[] = [];
    for await (const page of client.courses.list({ limit: 3 }).pages()) sizes.push(page.data.length);
    expect(sizes).to.deep.equal([3, 2]);
    for await (const first of client.keys.list({ limit: 2 })) {
      expect(first.id).to.equal("inst_0");
      break;
    }
    expect(server.requests).to.have.length(4);
  });

  it("stops on an empty page even when the total says otherwise", async () => {
    const { client } = setup([
      json(200, { data: [], pagination: { total: 9, limit: 2, offset: 0, returned: 0, nextCursor: "c9" } }),
    ]);
    expect(await client.datasets.list({ limit: 2 }).all()).to.deep.equal([]);
  });
});
