// Cursor paging (`after`, `pagination.nextCursor`) across the lists: a walk by
// cursor sees what a walk by offset sees, ties in the sort key are broken by
// the unique last field, the next link carries the cursor, and a malformed,
// altered or foreign cursor is a 400 `invalid-cursor`.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";

type ListBody = { data: { id: string }[]; pagination: { nextCursor: string | null; offset: number; total: number } };

describe("cursor paging: listEquivalencies, listInstitutions, listCourses, listKeys, listWebhooks, listDatasets, listWebhookDeliveries, getCurrentOrganization (GET …?after=)", () => {
  let t: TestApp;
  const get = (path: string, key = t.keys.live) => t.http.get(`/api/v1${path}`).set(bearer(key));
  const EQUIVALENCIES = 23;

  /** Every id of a list, walked by cursor from the first page; each page checked against the contract. */
  async function walk(path: string, limit: number, key = t.keys.live): Promise<string[]> {
    const seen: string[] = [];
    const join = path.includes("?") ? "&" : "?";
    let response = await get(`${path}${join}limit=${limit}`, key);
    for (;;) {
      await expectContract(response, 200);
      const body = response.body as ListBody;
      seen.push(...body.data.map((item) => item.id));
      if (!body.pagination.nextCursor) return seen;
      const next = /<([^>]+)>; rel="next"/.exec(response.headers.link)?.[1];
      if (seen.length > limit) expect(next, "the next link carries the cursor").to.contain("after=");
      response = await get(`${path}${join}limit=${limit}&after=${encodeURIComponent(body.pagination.nextCursor)}`, key);
    }
  }

  async function offsetWalk(path: string, key = t.keys.live): Promise<string[]> {
    const join = path.includes("?") ? "&" : "?";
    return ((await get(`${path}${join}limit=100`, key)).body as ListBody).data.map((item) => item.id);
  }

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await loadInstitutions(t.database.prisma, "sandbox");
    const db = t.database.prisma;
    await db.course.createMany({
      data: ["live", "sandbox"].flatMap((environment) =>
        Array.from({ length: 5 }, (_, i) => ({
          id: `crs_${environment}_${i}`,
          environment: environment as "live" | "sandbox",
          institutionId: i % 2 ? "inst_122977" : "inst_110635",
          code: `CS ${i}`,
          codeKey: `CS ${i}`,
          title: `Course ${i}`,
          credits: 3,
          level: "lower" as const,
        })),
      ),
    });
    // Many equivalencies share a creation time: the id breaks the tie, and a cursor must too.
    const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, Math.floor(i / 4)));
    await db.equivalency.createMany({
      data: Array.from({ length: EQUIVALENCIES }, (_, i) => ({
        id: `eq_${String((i * 7) % EQUIVALENCIES).padStart(3, "0")}`,
        environment: "live" as const,
        sourceCourseId: `crs_live_${i % 5}`,
        targetInstitutionId: "inst_110662",
        targetKey: `T${i}`,
        targetCode: `T ${i}`,
        status: i % 3 ? ("accepted" as const) : ("pending" as const),
        createdAt: at(i),
        updatedAt: at(i),
      })),
    });
  });
  after(() => t.close());

  it("listEquivalencies: a walk by cursor gives every item once, in list order, as offset paging does", async () => {
    const byOffset = await offsetWalk("/equivalencies");
    expect(byOffset).to.have.length(EQUIVALENCIES);
    for (const limit of [1, 4, 5, 22, 23, 100]) expect(await walk("/equivalencies", limit)).to.deep.equal(byOffset);
    expect(await walk("/equivalencies?status=accepted", 3)).to.deep.equal(
      await offsetWalk("/equivalencies?status=accepted"),
    );
    expect(await walk("/equivalencies?expand=course&status=pending", 2)).to.deep.equal(
      await offsetWalk("/equivalencies?status=pending"),
    );
  });

  it("listEquivalencies answers nextCursor with offset paging too, null on the last page, and a cursor page's links", async () => {
    const first = await get("/equivalencies?limit=10&offset=5");
    await expectContract(first, 200);
    expect(first.body.pagination).to.include({ offset: 5, returned: 10, total: EQUIVALENCIES });
    expect(first.body.pagination.nextCursor).to.be.a("string");
    expect(first.headers.link).to.contain('offset=15>; rel="next"').and.contain('rel="last"');
    const after = first.body.pagination.nextCursor as string;
    const second = await get(`/equivalencies?limit=10&after=${after}`);
    await expectContract(second, 200);
    expect(second.body.data.map((e: { id: string }) => e.id)).to.deep.equal(
      (await offsetWalk("/equivalencies")).slice(15, 23),
    );
    expect(second.body.pagination).to.include({ offset: 0, returned: 8, total: EQUIVALENCIES, nextCursor: null });
    expect(second.headers.link).to.equal('</api/v1/equivalencies?limit=10&offset=0>; rel="first"');
    // offset after a cursor skips that many items after it.
    const skipped = await get(`/equivalencies?limit=2&offset=3&after=${after}`);
    expect(skipped.body.data.map((e: { id: string }) => e.id)).to.deep.equal(
      (await offsetWalk("/equivalencies")).slice(18, 20),
    );
    expect(skipped.headers.link).to.match(/<\/api\/v1\/equivalencies\?limit=2&after=[^>]+>; rel="next"$/);
  });

  it("listEquivalencies: 400 invalid-cursor for a malformed, altered or foreign cursor", async () => {
    const cursor = (await get("/equivalencies?limit=1")).body.pagination.nextCursor as string;
    const institutionsCursor = (await get("/institutions?limit=1")).body.pagination.nextCursor as string;
    const sandboxCursor = (await get("/institutions?limit=1", t.keys.sandbox)).body.pagination.nextCursor as string;
    const other = await t.otherOrganization("cursor-other");
    const otherCursor = (await get("/equivalencies?limit=1", other.key)).body.pagination.nextCursor as string;
    const [payload, tag] = cursor.split(".");
    const forged = Buffer.from(JSON.stringify([{ t: "2030-01-01T00:00:00.000Z" }, "eq_999"])).toString("base64url");
    const cases: [string, string][] = [
      ["/equivalencies", "not-a-cursor"],
      ["/equivalencies", `${forged}.${tag}`],
      ["/equivalencies", `${payload}.${"A".repeat(22)}`],
      ["/equivalencies", institutionsCursor],
      ["/equivalencies?status=accepted", cursor],
      ["/institutions", sandboxCursor],
      ["/equivalencies", otherCursor],
    ];
    for (const [path, after] of cases) {
      const join = path.includes("?") ? "&" : "?";
      const response = await get(`${path}${join}after=${encodeURIComponent(after)}`);
      await expectContract(response, 400);
      expectProblem(response, "invalid-cursor");
      expect(response.body.errors).to.deep.equal([
        { pointer: "/query/after", message: response.body.errors[0].message },
      ]);
    }
    // The same cursor is fine where it came from.
    await expectContract(await get(`/equivalencies?after=${cursor}`), 200);
    await expectContract(await get(`/institutions?after=${sandboxCursor}`, t.keys.sandbox), 200);
  });

  it("listInstitutions and listCourses page by cursor as by offset, per environment", async () => {
    expect(await walk("/institutions", 2)).to.deep.equal(await offsetWalk("/institutions"));
    expect(await walk("/institutions", 2, t.keys.sandbox)).to.deep.equal(
      await offsetWalk("/institutions", t.keys.sandbox),
    );
    expect(await walk("/courses", 2)).to.deep.equal(await offsetWalk("/courses"));
    expect(await walk("/courses?institution=inst_110635", 1)).to.deep.equal(
      await offsetWalk("/courses?institution=inst_110635"),
    );
    const response = await get("/courses?after=x.y");
    await expectContract(response, 400);
    expectProblem(response, "invalid-cursor");
  });

  it("listKeys, listWebhooks, listDatasets, listWebhookDeliveries and getCurrentOrganization page by cursor", async () => {
    for (let i = 0; i < 3; i++) await t.keyFor(t.organizationId, "live");
    expect(await walk("/keys", 2)).to.deep.equal(await offsetWalk("/keys"));
    for (let i = 0; i < 3; i++) {
      const created = await t.http
        .post("/api/v1/webhooks")
        .set(bearer(t.keys.live))
        .send({ url: `https://hooks.example.com/${i}`, events: ["equivalency.created"] });
      expect(created.status).to.equal(201);
    }
    expect(await walk("/webhooks", 2)).to.deep.equal(await offsetWalk("/webhooks"));
    for (const path of ["/keys", "/webhooks", "/datasets"]) {
      const response = await get(`${path}?after=x.y`);
      await expectContract(response, 400);
      expectProblem(response, "invalid-cursor");
    }
    const datasets = await get("/datasets?limit=1");
    await expectContract(datasets, 200);
    expect(datasets.body.pagination.nextCursor).to.equal(null);
    const webhook = (await get("/webhooks?limit=1")).body.data[0].id as string;
    const deliveries = await get(`/webhooks/${webhook}/deliveries?limit=1`);
    await expectContract(deliveries, 200);
    expect(deliveries.body.pagination.nextCursor).to.equal(null);
    const badDeliveries = await get(`/webhooks/${webhook}/deliveries?after=x.y`);
    await expectContract(badDeliveries, 400);
    expectProblem(badDeliveries, "invalid-cursor");
    const me = await get("/organizations/me?limit=1");
    await expectContract(me, 200);
    expect(me.body.pagination).to.have.property("nextCursor");
    const badMe = await get("/organizations/me?after=x.y");
    await expectContract(badMe, 400);
    expectProblem(badMe, "invalid-cursor");
  });
});
