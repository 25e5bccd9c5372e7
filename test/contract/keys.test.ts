import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";

describe("keys: listKeys (GET /keys), createKey (POST /keys), revokeKey (DELETE /keys/{id})", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("createKey creates a key that works at once and is shown only in the 201 response", async () => {
    const created = await t.http
      .post("/api/v1/keys")
      .set(bearer(t.keys.live))
      .send({ name: "ci", scopes: ["read:public"] });
    await expectContract(created, 201);
    const { key, id, prefix } = created.body.data;
    expect(created.headers.location).to.equal(`/api/v1/keys/${id}`);
    expect(key).to.match(/^svc_live_[A-Za-z0-9_-]{40}$/);
    expect(key.startsWith(prefix)).to.equal(true);
    expect(created.body.data).to.include({ environment: "live", name: "ci", revokedAt: null });

    await expectContract(await t.http.get("/api/v1/keys").set(bearer(key)), 200);
    const listing = await t.http.get("/api/v1/keys").set(bearer(t.keys.live));
    await expectContract(listing, 200);
    expect(JSON.stringify(listing.body)).to.not.contain(key);
    expect(listing.body.data.map((k: { id: string }) => k.id)).to.include(id);
    expect(listing.headers["x-total-count"]).to.equal(String(listing.body.pagination.total));

    const stored = await t.database.prisma.apiKey.findUniqueOrThrow({ where: { id } });
    expect(JSON.stringify(stored)).to.not.contain(key);
  });

  it("createKey defaults to the caller's environment and scopes", async () => {
    const created = await t.http.post("/api/v1/keys").set(bearer(t.keys.sandbox));
    await expectContract(created, 201);
    expect(created.body.data).to.include({ environment: "sandbox", name: null });
    expect(created.body.data.scopes).to.have.members(["read:public", "write:contribute"]);
  });

  it("createKey refuses to grant an environment or scope the caller does not hold (403)", async () => {
    const otherEnv = await t.http.post("/api/v1/keys").set(bearer(t.keys.live)).send({ environment: "sandbox" });
    await expectContract(otherEnv, 403);
    expectProblem(otherEnv, "forbidden");
    const readOnly = await t.http
      .post("/api/v1/keys")
      .set(bearer(t.keys.liveReadOnly))
      .send({ scopes: ["read:public"] });
    await expectContract(readOnly, 403);
  });

  it("createKey validates the body (400) and writes nothing", async () => {
    const before = await t.database.prisma.apiKey.count();
    for (const body of [
      { scopes: [] },
      { scopes: ["admin"] },
      { name: "" },
      { color: "blue" },
      { environment: "test" },
    ]) {
      const response = await t.http.post("/api/v1/keys").set(bearer(t.keys.live)).send(body);
      await expectContract(response, 400);
      expectProblem(response, "validation-failed");
      expect(response.body.errors).to.be.an("array").that.is.not.empty;
    }
    expect(await t.database.prisma.apiKey.count()).to.equal(before);
  });

  it("revokeKey revokes a key (204); the key stops working at once; unknown ids are 404", async () => {
    const created = await t.http.post("/api/v1/keys").set(bearer(t.keys.live)).send({ name: "to revoke" });
    const { id, key } = created.body.data;
    expect((await t.http.get("/api/v1/keys").set(bearer(key))).status).to.equal(200);
    const revoked = await t.http.delete(`/api/v1/keys/${id}`).set(bearer(t.keys.live));
    await expectContract(revoked, 204);
    const refused = await t.http.get("/api/v1/keys").set(bearer(key));
    await expectContract(refused, 401);
    expect(refused.body.detail).to.contain("revoked");
    const stored = await t.database.prisma.apiKey.findUniqueOrThrow({ where: { id } });
    expect(stored.revokedAt).to.be.instanceOf(Date);

    const unknown = await t.http.delete("/api/v1/keys/key_nope").set(bearer(t.keys.live));
    await expectContract(unknown, 404);
    expectProblem(unknown, "not-found");
  });

  it("revokeKey answers 404, never 403, for another organization's key, which listKeys omits", async () => {
    const other = await t.otherOrganization("other-org");
    const theirs = await t.http.get("/api/v1/keys").set(bearer(other.key));
    const theirId = theirs.body.data[0].id;
    const mine = await t.http.get("/api/v1/keys?limit=100").set(bearer(t.keys.live));
    expect(mine.body.data.map((k: { id: string }) => k.id)).to.not.include(theirId);
    const attempt = await t.http.delete(`/api/v1/keys/${theirId}`).set(bearer(t.keys.live));
    await expectContract(attempt, 404);
    expect((await t.http.get("/api/v1/keys").set(bearer(other.key))).status).to.equal(200);
  });

  it("records lastUsedAt when a key is used", async () => {
    const created = await t.http.post("/api/v1/keys").set(bearer(t.keys.live)).send({ name: "usage" });
    await t.http.get("/api/v1/keys").set(bearer(created.body.data.key));
    // The write is deliberately asynchronous; wait for it rather than for time.
    let stored = null;
    for (let i = 0; i < 50 && !stored?.lastUsedAt; i++) {
      stored = await t.database.prisma.apiKey.findUniqueOrThrow({ where: { id: created.body.data.id } });
      if (!stored.lastUsedAt) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(stored?.lastUsedAt).to.be.instanceOf(Date);
  });
});
