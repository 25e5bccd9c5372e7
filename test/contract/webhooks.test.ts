import os from "node:os";
import { repositoriesOf } from "../../src/repositories/index.ts";
import { expect } from "chai";
import type { Response } from "supertest";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import {
  createWebhooksService,
  OWNER_DISABLED_REASON,
  webhookView,
  type TargetPolicy,
} from "../../src/services/webhooks.ts";
import { createWebhooksRepository } from "../../src/repositories/webhooks.ts";
import { storedSecrets } from "../helpers/webhooks.ts";

const ANY_TARGET: TargetPolicy = { allowPrivateTargets: true };

/** The webhooks service over the test app's database, with a target policy and clock of the test's choosing. */
function webhookService(t: TestApp, targetPolicy: TargetPolicy, now?: () => Date) {
  return createWebhooksService({
    webhooks: createWebhooksRepository(t.database.prisma),
    transaction: repositoriesOf(t.database).transaction,
    secrets: t.secrets,
    targetPolicy,
    now,
  });
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const registration = {
  url: "https://registrar.example.edu/hooks/course-equivalency",
  events: ["equivalency.created", "equivalency.updated"],
  description: "Registrar articulation sync",
};

function pointers(response: Response): string[] {
  return response.body.errors.map((error: { pointer: string }) => error.pointer);
}

describe("webhooks: /webhooks, /webhooks/{id}, /webhooks/{id}/rotate-secret (createWebhook, listWebhooks, getWebhook, updateWebhook, deleteWebhook, rotateWebhookSecret)", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function register(key = t.keys.live, body: object = registration) {
    const response = await t.http.post("/api/v1/webhooks").set(bearer(key)).send(body);
    await expectContract(response, 201);
    return response.body.data as { id: string; secret: string; secretPrefix: string };
  }

  describe("createWebhook", () => {
    it("201 with the full secret, its prefix and Location", async () => {
      const response = await t.http.post("/api/v1/webhooks").set(bearer(t.keys.live)).send(registration);
      await expectContract(response, 201);
      const data = response.body.data;
      expect(data.id).to.match(/^wh_/);
      const { events, ...scalars } = registration;
      expect(data).to.include({
        ...scalars,
        status: "enabled",
        disabledReason: null,
        environment: "live",
        previousSecretExpiresAt: null,
      });
      expect(data.events).to.deep.equal(events);
      expect(data.secret).to.match(/^whsec_[A-Za-z0-9_-]{20,}$/);
      expect(data.secret.startsWith(data.secretPrefix)).to.equal(true);
      expect(data.secretPrefix.length).to.be.lessThan(data.secret.length);
      expect(response.headers.location).to.equal(`/api/v1/webhooks/${data.id}`);
    });

    it("description is optional and null when absent; the endpoint belongs to the caller's environment", async () => {
      const data = await register(t.keys.sandbox, {
        url: "http://receiver.example.org/hook",
        events: ["dataset.published"],
      });
      const fetched = await t.http.get(`/api/v1/webhooks/${data.id}`).set(bearer(t.keys.sandbox));
      await expectContract(fetched, 200);
      expect(fetched.body.data).to.include({
        description: null,
        environment: "sandbox",
        url: "http://receiver.example.org/hook",
      });
    });

    it("400 for a URL that is not http(s), with pointer /url and the reason; nothing written", async () => {
      const before = await t.database.prisma.webhookEndpoint.count();
      const ftp = await t.http
        .post("/api/v1/webhooks")
        .set(bearer(t.keys.live))
        .send({ ...registration, url: "ftp://files.example.edu/drop" });
      await expectContract(ftp, 400);
      expectProblem(ftp, "validation-failed");
      expect(ftp.body.errors).to.deep.equal([{ pointer: "/url", message: "url must use http or https" }]);

      for (const url of ["not a url", "https://user:pass@example.edu/hook", ""]) {
        const response = await t.http
          .post("/api/v1/webhooks")
          .set(bearer(t.keys.live))
          .send({ ...registration, url });
        await expectContract(response, 400);
        expect(pointers(response), url).to.include("/url");
      }
      expect(await t.database.prisma.webhookEndpoint.count()).to.equal(before);
    });

    it("400 for an empty, repeated or unknown event list, an unknown field or a missing url", async () => {
      const cases: [object, string][] = [
        [{ ...registration, events: [] }, "/events"],
        [{ ...registration, events: ["equivalency.deleted"] }, "/events/0"],
        [{ ...registration, events: ["course.updated", "course.updated"] }, "/events"],
        [{ ...registration, secret: "whsec_mine" }, "/secret"],
        [{ events: registration.events }, "/url"],
      ];
      for (const [body, pointer] of cases) {
        const response = await t.http.post("/api/v1/webhooks").set(bearer(t.keys.live)).send(body);
        await expectContract(response, 400);
        expectProblem(response, "validation-failed");
        expect(pointers(response).join(" "), JSON.stringify(body)).to.contain(pointer);
      }
    });

    it("401 without a credential, 403 for a read-only key, 415 for a body that is not JSON", async () => {
      await expectContract(await t.http.post("/api/v1/webhooks").send(registration), 401);
      const readOnly = await t.http.post("/api/v1/webhooks").set(bearer(t.keys.liveReadOnly)).send(registration);
      await expectContract(readOnly, 403);
      expectProblem(readOnly, "forbidden");
      const text = await t.http
        .post("/api/v1/webhooks")
        .set(bearer(t.keys.live))
        .set("Content-Type", "text/plain")
        .send("url=x");
      await expectContract(text, 415);
      expectProblem(text, "unsupported-media-type");
    });
  });

  describe("listWebhooks and getWebhook", () => {
    it("lists the caller's endpoints in createdAt, id order with X-Total-Count and Link", async () => {
      const other = await t.otherOrganization("paging-hooks");
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1)
        ids.push((await register(other.key, { ...registration, description: `hook ${i}` })).id);

      const first = await t.http.get("/api/v1/webhooks?limit=2").set(bearer(other.key));
      await expectContract(first, 200);
      expect(first.body.data.map((w: { id: string }) => w.id)).to.deep.equal(ids.slice(0, 2));
      expect(first.body.pagination).to.include({ total: 3, limit: 2, offset: 0, returned: 2 });
      expect(first.headers["x-total-count"]).to.equal("3");
      expect(first.headers.link).to.contain('</api/v1/webhooks?limit=2&offset=2>; rel="next"');

      const second = await t.http.get("/api/v1/webhooks?limit=2&offset=2").set(bearer(other.key));
      await expectContract(second, 200);
      expect(second.body.data.map((w: { id: string }) => w.id)).to.deep.equal(ids.slice(2));
      expect(second.headers.link).to.contain('rel="prev"').and.not.contain('rel="next"');
    });

    it("GET answers the endpoint with secretPrefix only; a read-only key may read", async () => {
      const created = await register();
      const fetched = await t.http.get(`/api/v1/webhooks/${created.id}`).set(bearer(t.keys.liveReadOnly));
      await expectContract(fetched, 200);
      expect(fetched.body.data).to.not.have.property("secret");
      expect(fetched.body.data.secretPrefix).to.equal(created.secretPrefix);
      const listing = await t.http.get("/api/v1/webhooks?limit=100").set(bearer(t.keys.liveReadOnly));
      await expectContract(listing, 200);
      expect(listing.body.data.map((w: { id: string }) => w.id)).to.include(created.id);
      for (const item of listing.body.data) expect(item).to.not.have.property("secret");
    });

    it("400 for a limit out of range, 401 without a credential, 404 for an unknown id", async () => {
      const badLimit = await t.http.get("/api/v1/webhooks?limit=0").set(bearer(t.keys.live));
      await expectContract(badLimit, 400);
      await expectContract(await t.http.get("/api/v1/webhooks"), 401);
      await expectContract(await t.http.get("/api/v1/webhooks/wh_nope"), 401);
      const unknown = await t.http.get("/api/v1/webhooks/wh_nope").set(bearer(t.keys.live));
      await expectContract(unknown, 404);
      expectProblem(unknown, "not-found");
    });

    it("403 for a credential without the read scope", async () => {
      const { key } = await t.app.context.services.keys.issueKey({
        organizationId: t.organizationId,
        environment: "live",
        scopes: ["write:contribute"],
      });
      const response = await t.http.get("/api/v1/webhooks").set(bearer(key));
      await expectContract(response, 403);
      await expectContract(await t.http.get("/api/v1/webhooks/wh_nope").set(bearer(key)), 403);
    });
  });

  describe("updateWebhook", () => {
    it("changes url, events and description (null clears it); the secret is unchanged", async () => {
      const created = await register();
      const response = await t.http
        .patch(`/api/v1/webhooks/${created.id}`)
        .set(bearer(t.keys.live))
        .send({ url: "https://new.example.edu/hook", events: ["course.updated"], description: null });
      await expectContract(response, 200);
      expect(response.body.data).to.include({
        url: "https://new.example.edu/hook",
        description: null,
        secretPrefix: created.secretPrefix,
      });
      expect(response.body.data.events).to.deep.equal(["course.updated"]);
      expect(response.body.data).to.not.have.property("secret");
      const stored = await t.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
      expect((await storedSecrets(t.database.prisma, t.secrets, created.id)).secret).to.equal(created.secret);
      expect(stored.updatedAt.getTime()).to.be.greaterThanOrEqual(stored.createdAt.getTime());
    });

    it("disabling records the owner as reason; re-enabling clears reason, disabledAt and failingSince", async () => {
      const created = await register();
      const disabled = await t.http
        .patch(`/api/v1/webhooks/${created.id}`)
        .set(bearer(t.keys.live))
        .send({ status: "disabled" });
      await expectContract(disabled, 200);
      expect(disabled.body.data).to.include({ status: "disabled", disabledReason: OWNER_DISABLED_REASON });

      // As the dispatcher leaves an endpoint it disabled after a run of failures.
      await t.database.prisma.webhookEndpoint.update({
        where: { id: created.id },
        data: {
          disabledReason: "Deliveries failed for 5 days in a row",
          failingSince: new Date(Date.now() - 5 * DAY_MS),
        },
      });
      const enabled = await t.http
        .patch(`/api/v1/webhooks/${created.id}`)
        .set(bearer(t.keys.live))
        .send({ status: "enabled" });
      await expectContract(enabled, 200);
      expect(enabled.body.data).to.include({ status: "enabled", disabledReason: null });
      const stored = await t.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
      expect(stored).to.include({ disabledAt: null, failingSince: null, disabledReason: null });
    });

    it("400 for an ftp URL, an empty or unknown event list, an unknown field or an empty body", async () => {
      const created = await register();
      const ftp = await t.http
        .patch(`/api/v1/webhooks/${created.id}`)
        .set(bearer(t.keys.live))
        .send({ url: "ftp://files.example.edu/" });
      await expectContract(ftp, 400);
      expect(ftp.body.errors).to.deep.equal([{ pointer: "/url", message: "url must use http or https" }]);
      for (const body of [{ events: [] }, { events: ["nope"] }, { status: "paused" }, { secret: "x" }, {}]) {
        const response = await t.http.patch(`/api/v1/webhooks/${created.id}`).set(bearer(t.keys.live)).send(body);
        await expectContract(response, 400);
        expectProblem(response, "validation-failed");
      }
      const stored = await t.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
      expect(stored.url).to.equal(registration.url);
    });

    it("401, 403 for a read-only key, 404 for an unknown id, 415 for a body that is not JSON", async () => {
      const created = await register();
      await expectContract(await t.http.patch(`/api/v1/webhooks/${created.id}`).send({ status: "disabled" }), 401);
      const readOnly = await t.http
        .patch(`/api/v1/webhooks/${created.id}`)
        .set(bearer(t.keys.liveReadOnly))
        .send({ status: "disabled" });
      await expectContract(readOnly, 403);
      const unknown = await t.http
        .patch("/api/v1/webhooks/wh_nope")
        .set(bearer(t.keys.live))
        .send({ status: "disabled" });
      await expectContract(unknown, 404);
      const text = await t.http
        .patch(`/api/v1/webhooks/${created.id}`)
        .set(bearer(t.keys.live))
        .set("Content-Type", "text/plain")
        .send("status=disabled");
      await expectContract(text, 415);
      const stored = await t.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
      expect(stored.status).to.equal("enabled");
    });
  });

  describe("deleteWebhook", () => {
    it("soft-deletes (204); afterwards GET, PATCH, DELETE and rotate are 404 and the list omits it", async () => {
      const created = await register();
      const deleted = await t.http.delete(`/api/v1/webhooks/${created.id}`).set(bearer(t.keys.live));
      await expectContract(deleted, 204);
      const stored = await t.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
      expect(stored.deletedAt).to.be.instanceOf(Date);

      const path = `/api/v1/webhooks/${created.id}`;
      await expectContract(await t.http.get(path).set(bearer(t.keys.live)), 404);
      await expectContract(await t.http.patch(path).set(bearer(t.keys.live)).send({ status: "enabled" }), 404);
      await expectContract(await t.http.delete(path).set(bearer(t.keys.live)), 404);
      await expectContract(await t.http.post(`${path}/rotate-secret`).set(bearer(t.keys.live)), 404);
      const listing = await t.http.get("/api/v1/webhooks?limit=100").set(bearer(t.keys.live));
      expect(listing.body.data.map((w: { id: string }) => w.id)).to.not.include(created.id);
    });

    it("401, 403 for a read-only key; the endpoint survives", async () => {
      const created = await register();
      await expectContract(await t.http.delete(`/api/v1/webhooks/${created.id}`), 401);
      await expectContract(await t.http.delete(`/api/v1/webhooks/${created.id}`).set(bearer(t.keys.liveReadOnly)), 403);
      await expectContract(await t.http.get(`/api/v1/webhooks/${created.id}`).set(bearer(t.keys.live)), 200);
    });
  });

  describe("rotateWebhookSecret", () => {
    it("200 with a new secret; the previous one signs until now + 24 h; a second rotation keeps the then-current one", async () => {
      const created = await register();
      const path = `/api/v1/webhooks/${created.id}/rotate-secret`;

      const before = Date.now();
      const first = await t.http.post(path).set(bearer(t.keys.live));
      const after = Date.now();
      await expectContract(first, 200);
      const rotated = first.body.data;
      expect(rotated.secret)
        .to.match(/^whsec_/)
        .and.not.equal(created.secret);
      expect(rotated.secret.startsWith(rotated.secretPrefix)).to.equal(true);
      const expires = Date.parse(rotated.previousSecretExpiresAt);
      expect(expires).to.be.within(before + DAY_MS, after + DAY_MS);
      expect(await storedSecrets(t.database.prisma, t.secrets, created.id)).to.deep.equal({
        secret: rotated.secret,
        previousSecret: created.secret,
      });

      const second = await t.http.post(path).set(bearer(t.keys.live));
      await expectContract(second, 200);
      expect(await storedSecrets(t.database.prisma, t.secrets, created.id)).to.deep.equal({
        secret: second.body.data.secret,
        previousSecret: rotated.secret,
      });
      expect(Date.parse(second.body.data.previousSecretExpiresAt)).to.be.at.least(expires);

      const fetched = await t.http.get(`/api/v1/webhooks/${created.id}`).set(bearer(t.keys.live));
      expect(fetched.body.data).to.include({ previousSecretExpiresAt: second.body.data.previousSecretExpiresAt });
    });

    it("401, 403 for a read-only key, 404 for an unknown id; the secret is unchanged", async () => {
      const created = await register();
      const path = `/api/v1/webhooks/${created.id}/rotate-secret`;
      await expectContract(await t.http.post(path), 401);
      await expectContract(await t.http.post(path).set(bearer(t.keys.liveReadOnly)), 403);
      await expectContract(await t.http.post("/api/v1/webhooks/wh_nope/rotate-secret").set(bearer(t.keys.live)), 404);
      expect(await storedSecrets(t.database.prisma, t.secrets, created.id)).to.deep.equal({
        secret: created.secret,
        previousSecret: null,
      });
    });
  });

  it("shows each secret only in the response that created it", async () => {
    const created = await register();
    const path = `/api/v1/webhooks/${created.id}`;
    const rotated = await t.http.post(`${path}/rotate-secret`).set(bearer(t.keys.live));
    expect(JSON.stringify(rotated.body)).to.not.contain(created.secret);
    const others = [
      await t.http.get("/api/v1/webhooks?limit=100").set(bearer(t.keys.live)),
      await t.http.get(path).set(bearer(t.keys.live)),
      await t.http.patch(path).set(bearer(t.keys.live)).send({ description: "still secret" }),
      await t.http.delete(path).set(bearer(t.keys.live)),
    ];
    for (const response of others) {
      const shown = JSON.stringify(response.body) + JSON.stringify(response.headers);
      expect(shown).to.not.contain(created.secret);
      expect(shown).to.not.contain(rotated.body.data.secret);
    }
  });

  it("isolates organizations and environments: 404, never 403, and absent from lists", async () => {
    const created = await register();
    const other = await t.otherOrganization("isolated-hooks");
    const path = `/api/v1/webhooks/${created.id}`;
    for (const key of [other.key, t.keys.sandbox]) {
      for (const response of [
        await t.http.get(path).set(bearer(key)),
        await t.http.patch(path).set(bearer(key)).send({ status: "disabled" }),
        await t.http.post(`${path}/rotate-secret`).set(bearer(key)),
        await t.http.delete(path).set(bearer(key)),
      ]) {
        await expectContract(response, 404);
        expectProblem(response, "not-found");
      }
      const listing = await t.http.get("/api/v1/webhooks?limit=100").set(bearer(key));
      expect(listing.body.data.map((w: { id: string }) => w.id)).to.not.include(created.id);
    }
    const stored = await t.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
    expect(stored).to.include({ status: "enabled", deletedAt: null });
    expect((await storedSecrets(t.database.prisma, t.secrets, created.id)).secret).to.equal(created.secret);
  });
});

describe("webhook targets by default (createWebhook, SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS unset)", () => {
  const register = (t: TestApp, url: string) =>
    t.http
      .post("/api/v1/webhooks")
      .set(bearer(t.keys.live))
      .send({ ...registration, url });
  const privateUrls = [
    "https://10.0.0.5/hook",
    "http://192.168.1.10/hook",
    "http://169.254.169.254/latest",
    "http://[fd00:ec2::254]/latest",
    ...Object.values(os.networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .filter((entry) => !entry.internal && !entry.address.startsWith("fe80:"))
      .map((entry) => (entry.family === "IPv6" ? `http://[${entry.address}]/hook` : `http://${entry.address}/hook`)),
  ];

  it("a server listening on loopback refuses private and metadata targets (400) and accepts loopback ones (201)", async () => {
    const t = await createTestApp({
      SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "",
      HOST: "127.0.0.1",
      NODE_ENV: "development",
    });
    try {
      for (const url of privateUrls) {
        const response = await register(t, url);
        await expectContract(response, 400);
        expect(pointers(response), url).to.deep.equal(["/url"]);
      }
      for (const url of ["http://127.0.0.1:4000/hooks", "http://[::1]:4000/hooks"])
        await expectContract(await register(t, url), 201);
    } finally {
      await t.close();
    }
  });

  it("a server listening on another address refuses loopback targets too", async () => {
    const t = await createTestApp({ SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "", HOST: "0.0.0.0" });
    try {
      for (const url of ["http://127.0.0.1:4000/hooks", "http://[::1]:4000/hooks", ...privateUrls]) {
        const response = await register(t, url);
        await expectContract(response, 400);
        expect(response.body.errors[0].message, url).to.match(/^url resolves to /);
      }
      expect(await t.database.prisma.webhookEndpoint.count()).to.equal(0);
    } finally {
      await t.close();
    }
  });
});

describe("webhooks: createWebhook and updateWebhook refuse private targets when they are not allowed", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "false" });
  });
  after(() => t.close());

  const caller = () => ({ organizationId: t.organizationId, environment: "live" as const });
  const strict = (addresses: string[]): TargetPolicy => ({
    allowPrivateTargets: false,
    resolve: async () => addresses,
  });

  it("400 with pointer /url for loopback, private, link-local and metadata addresses", async () => {
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "https://10.0.0.5/hook",
      "http://169.254.169.254/latest",
      "http://[::1]/hook",
    ]) {
      const response = await t.http
        .post("/api/v1/webhooks")
        .set(bearer(t.keys.live))
        .send({ ...registration, url });
      await expectContract(response, 400);
      expectProblem(response, "validation-failed");
      expect(pointers(response), url).to.deep.equal(["/url"]);
      expect(response.body.errors[0].message).to.contain("loopback, private, link-local or metadata");
    }
    expect(await t.database.prisma.webhookEndpoint.count()).to.equal(0);
  });

  it("400 with pointer /url for IPv6 forms carrying a private or loopback IPv4 address, and for this host's own addresses", async () => {
    const transitionForms = [
      "http://[::127.0.0.1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
      "http://[64:ff9b::10.0.0.1]/hook",
      "https://[2002:c0a8:101::1]/hook",
    ];
    const ownAddresses = Object.values(os.networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .map((entry) =>
        entry.family === "IPv6" ? `http://[${entry.address}]:8080/hook` : `http://${entry.address}:8080/hook`,
      );
    expect(ownAddresses).to.have.length.above(0);
    for (const url of [...transitionForms, ...ownAddresses]) {
      const response = await t.http
        .post("/api/v1/webhooks")
        .set(bearer(t.keys.live))
        .send({ ...registration, url });
      await expectContract(response, 400);
      expectProblem(response, "validation-failed");
      expect(pointers(response), url).to.deep.equal(["/url"]);
    }
    expect(await t.database.prisma.webhookEndpoint.count()).to.equal(0);
  });

  it("refuses an address of this host's interfaces, read at each registration, on POST and PATCH", async () => {
    const own: string[] = [];
    const policy: TargetPolicy = {
      allowPrivateTargets: false,
      resolve: async () => ["93.184.216.34"],
      interfaceAddresses: () => own,
    };
    const accepted = await webhookService(t, policy).createWebhook(caller(), {
      ...registration,
      url: "https://hooks.example.edu/in",
    });
    own.push("93.184.216.34");
    const refusals = [
      {
        attempt: () =>
          webhookService(t, policy).createWebhook(caller(), { ...registration, url: "https://hooks.example.edu/in" }),
        message: "url resolves to 93.184.216.34, an address of this server's own network interfaces",
      },
      {
        attempt: () =>
          webhookService(t, policy).updateWebhook(caller(), accepted.id, { url: "https://[::ffff:93.184.216.34]/in" }),
        message:
          "url resolves to ::ffff:5db8:d822, an IPv6 form of 93.184.216.34, an address of this server's own network interfaces",
      },
    ];
    for (const { attempt, message } of refusals) {
      await attempt().then(
        () => expect.fail("a target on this host's own address was accepted"),
        (error: { extensions: unknown }) =>
          expect(error.extensions).to.deep.equal({ errors: [{ pointer: "/url", message }] }),
      );
    }
  });

  it("updateWebhook checks a new URL the same way", async () => {
    const created = await t.http
      .post("/api/v1/webhooks")
      .set(bearer(t.keys.live))
      .send({ ...registration, url: "https://93.184.216.34/hook" });
    await expectContract(created, 201);
    const response = await t.http
      .patch(`/api/v1/webhooks/${created.body.data.id}`)
      .set(bearer(t.keys.live))
      .send({ url: "http://192.168.1.10/" });
    await expectContract(response, 400);
    expect(pointers(response)).to.deep.equal(["/url"]);
  });

  it("refuses a host name that resolves to a private address, after resolution", async () => {
    const input = { ...registration, url: "https://hooks.example.edu/in" };
    try {
      await webhookService(t, strict(["93.184.216.34", "10.0.0.5"])).createWebhook(caller(), input);
      expect.fail("a host resolving to 10.0.0.5 was accepted");
    } catch (error) {
      expect((error as { extensions: unknown }).extensions).to.deep.equal({
        errors: [
          { pointer: "/url", message: "url resolves to 10.0.0.5, a loopback, private, link-local or metadata address" },
        ],
      });
    }
    const accepted = await webhookService(t, strict(["93.184.216.34"])).createWebhook(caller(), input);
    expect(accepted.url).to.equal(input.url);
    const moved = webhookService(t, strict(["10.0.0.5"])).updateWebhook(caller(), accepted.id, {
      url: "https://moved.example.edu/",
    });
    await moved.then(
      () => expect.fail("PATCH to a private target was accepted"),
      (error: Error) => expect(error.message).to.contain("10.0.0.5"),
    );
  });
});

describe("webhooks: secret rotation over time (service, injected clock)", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("the previous secret is reported until it expires; a rotation within 24 h replaces it", async () => {
    const db = t.database.prisma;
    const caller = { organizationId: t.organizationId, environment: "live" as const };
    const created = await webhookService(t, { allowPrivateTargets: true }).createWebhook(caller, registration);
    const t0 = new Date("2030-01-01T00:00:00Z");

    const first = await webhookService(t, ANY_TARGET, () => t0).rotateWebhookSecret(caller, created.id);
    expect(first.previousSecretExpiresAt).to.equal("2030-01-02T00:00:00.000Z");
    const second = await webhookService(t, ANY_TARGET, () => new Date(t0.getTime() + HOUR_MS)).rotateWebhookSecret(
      caller,
      created.id,
    );
    expect(second.previousSecretExpiresAt).to.equal("2030-01-02T01:00:00.000Z");
    const stored = await db.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
    expect(await storedSecrets(db, t.secrets, created.id)).to.deep.equal({
      secret: second.secret,
      previousSecret: first.secret,
    });

    expect(webhookView(stored, new Date(t0.getTime() + 24 * HOUR_MS)).previousSecretExpiresAt).to.equal(
      "2030-01-02T01:00:00.000Z",
    );
    expect(webhookView(stored, new Date(t0.getTime() + 25 * HOUR_MS)).previousSecretExpiresAt).to.equal(null);
  });

  it("findWebhook is the 404 lookup: other organization, other environment, deleted", async () => {
    const caller = { organizationId: t.organizationId, environment: "live" as const };
    const created = await webhookService(t, { allowPrivateTargets: true }).createWebhook(caller, registration);
    expect((await webhookService(t, ANY_TARGET).findWebhook(caller, created.id)).id).to.equal(created.id);
    const other = await t.otherOrganization("finder");
    for (const scope of [
      { ...caller, organizationId: other.id },
      { ...caller, environment: "sandbox" as const },
    ]) {
      await webhookService(t, ANY_TARGET)
        .findWebhook(scope, created.id)
        .then(
          () => expect.fail("found across a boundary"),
          (error: Error) => expect(error.name).to.equal("NotFoundError"),
        );
    }
    await webhookService(t, ANY_TARGET).deleteWebhook(caller, created.id);
    await webhookService(t, ANY_TARGET)
      .findWebhook(caller, created.id)
      .then(
        () => expect.fail("found a deleted endpoint"),
        (error: Error) => expect(error.name).to.equal("NotFoundError"),
      );
  });
});
