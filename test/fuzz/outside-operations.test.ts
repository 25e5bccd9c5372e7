// Fuzzing of the requests the document's operations do not describe: the OAuth
// token form (percent-encoding, U+0000, lone surrogates, fields that are not
// text) and header fields around the HTTP parser's limit on a real server.
// Neither is ever answered 5xx, and each refusal is the documented problem.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import fc from "fast-check";
import { createServer } from "../../src/app/server.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { assertProperty, runs } from "./properties.ts";

/** Percent-encodings decodeURIComponent refuses: cut short, not hex, an encoded lone surrogate, invalid UTF-8. */
const MALFORMED = ["%", "%4", "%G1", "%E0%A4%A", "%ED%A0%80", "%C3", "%FF"];
const NAMES = ["grant_type", "client_id", "client_secret", "scope"];

interface Piece {
  wire: string;
  malformed: boolean;
  /** The decoded text holds U+0000. */
  nul: boolean;
}

/** Any well-formed text, sent percent-encoded (U+0000 included), or a malformed encoding. */
const piece: fc.Arbitrary<Piece> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .string({ unit: "binary", maxLength: 12 })
      .map((text) => ({ wire: encodeURIComponent(text), malformed: false, nul: text.includes("\u0000") })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("client_credentials", "a+b", "%2B")
      .map((wire) => ({ wire, malformed: false, nul: false })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ unit: "grapheme-ascii", maxLength: 4 }), fc.constantFrom(...MALFORMED))
      .map(([text, bad]) => ({ wire: encodeURIComponent(text) + bad, malformed: true, nul: false })),
  },
);
const name: fc.Arbitrary<Piece> = fc.oneof(
  fc.constantFrom(...NAMES).map((wire) => ({ wire, malformed: false, nul: false })),
  piece,
);
const form = fc.array(fc.tuple(name, piece), { minLength: 1, maxLength: 5 });

/** JSON members: strings (U+0000 and lone surrogates included), or values that are not text. */
const jsonForm = fc.dictionary(
  fc.constantFrom(...NAMES),
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.string({
        unit: fc.oneof(
          fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
          fc.constantFrom("\u0000", "\ud800", "\udc00"),
        ),
        maxLength: 8,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.string(), { maxLength: 2 })),
    },
  ),
  { minKeys: 1 },
);

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("fuzz: outside the document's operations", function () {
  this.timeout(60_000 + runs * 1_000);
  let t: TestApp;
  let server: http.Server;
  let port: number;

  before(async () => {
    t = await createTestApp({ SVC_RATE_LIMIT_BURST: "1000000", SVC_WEBHOOK_DISPATCHER: "off" });
    server = createServer(t.app.koa).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  const expectInvalidRequest = (
    response: { status: number; body: { error?: string }; headers: Record<string, string> },
    context: string,
  ) => {
    expect(response.status, context).to.equal(400);
    expect(response.body.error, context).to.equal("invalid_request");
    expect(response.headers["content-type"], context).to.match(/^application\/problem\+json/);
  };

  it("POST /oauth/token with any form body: below 500; malformed encoding or U+0000 is 400 invalid_request", async () => {
    await assertProperty("oauth token form", form, async (pairs) => {
      const body = pairs.map(([key, value]) => `${key.wire}=${value.wire}`).join("&");
      const response = await t.http
        .post("/oauth/token")
        .set("Content-Type", "application/x-www-form-urlencoded")
        .send(body);
      const context = `${body} -> ${response.status} ${JSON.stringify(response.body)}`;
      expect(response.status, context).to.be.within(400, 499);
      if (pairs.some(([key, value]) => key.malformed || value.malformed || key.nul || value.nul))
        expectInvalidRequest(response, context);
    });
  });

  it("POST /oauth/token with any JSON object: below 500; U+0000, a lone surrogate or a non-text field is 400 invalid_request", async () => {
    await assertProperty("oauth token json", jsonForm, async (fields) => {
      const body = JSON.stringify(fields);
      const response = await t.http.post("/oauth/token").set("Content-Type", "application/json").send(body);
      const context = `${body} -> ${response.status} ${JSON.stringify(response.body)}`;
      expect(response.status, context).to.be.within(400, 499);
      const flawed = Object.values(fields).some(
        (value) => typeof value !== "string" || value.includes("\u0000") || LONE_SURROGATE.test(value),
      );
      if (flawed) expectInvalidRequest(response, context);
    });
  });

  it("Basic client credentials with any encoding: below 500; malformed encoding or U+0000 is 400 invalid_request", async () => {
    await assertProperty("oauth token basic", fc.tuple(piece, piece), async ([id, secret]) => {
      const authorization = `Basic ${Buffer.from(`${id.wire || "x"}:${secret.wire}`).toString("base64")}`;
      const response = await t.http
        .post("/oauth/token")
        .set("Authorization", authorization)
        .type("form")
        .send("grant_type=client_credentials");
      const context = `${id.wire}:${secret.wire} -> ${response.status} ${JSON.stringify(response.body)}`;
      expect(response.status, context).to.be.within(400, 499);
      if (id.malformed || secret.malformed || id.nul || secret.nul) expectInvalidRequest(response, context);
    });
  });

  it("header fields of any size on a real server: 431 problem above the parser's limit, answered below it", async () => {
    const limit = http.maxHeaderSize;
    await assertProperty(
      "header size",
      fc.tuple(fc.integer({ min: 1, max: 4 * limit }), fc.constantFrom("X-Padding", "Cookie", "User-Agent")),
      async ([size, header]) => {
        const response = await rawGet(port, "/healthz", { [header]: "a".repeat(size) });
        const context = `${header}: ${size} characters -> ${response.status} ${response.body.slice(0, 200)}`;
        if (size > limit) {
          expect(response.status, context).to.equal(431);
          expect(response.headers["content-type"], context).to.equal("application/problem+json");
          const problem = JSON.parse(response.body);
          expect(problem, context).to.include({
            type: "https://course-equivalency.org/problems/request-header-too-large",
            status: 431,
          });
          expect(problem.requestId, context).to.equal(response.headers["x-request-id"]);
        } else if (size < limit - 1024) {
          expect(response.status, context).to.equal(200);
        } else {
          expect(response.status, context).to.be.oneOf([200, 431]);
        }
      },
    );
  });
});

function rawGet(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, path, headers, agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on("error", reject);
    request.end();
  });
}
