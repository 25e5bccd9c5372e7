import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { loadInstitutions, SANDBOX_INSTITUTION } from "../helpers/fixtures.ts";

describe("institutions: listInstitutions (GET /institutions), getInstitution (GET /institutions/{id})", () => {
  let t: TestApp;
  const get = (path: string, key = t.keys.live) => t.http.get(`/api/v1${path}`).set(bearer(key));
  const ids = (response: { body: { data: { id: string }[] } }) => response.body.data.map((i) => i.id);

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await loadInstitutions(t.database.prisma, "sandbox", [SANDBOX_INSTITUTION]);
  });
  after(() => t.close());

  it("listInstitutions lists by name then id, with pagination, X-Total-Count and Link", async () => {
    const response = await get("/institutions?limit=2");
    await expectContract(response, 200);
    expect(response.body.pagination).to.include({ total: 6, limit: 2, offset: 0, returned: 2 });
    expect(ids(response)).to.deep.equal(["inst_166027", "inst_119216"]);
    expect(response.headers["x-total-count"]).to.equal("6");
    expect(response.headers.link).to.contain('rel="next"').and.contain('offset=4>; rel="last"');
    const next = await get("/institutions?limit=2&offset=2");
    expect(ids(next)).to.deep.equal(["inst_227881", "inst_122977"]);
  });

  it("listInstitutions filters by state in any case, type, source and q (name or city)", async () => {
    expect(ids(await get("/institutions?state=tx"))).to.deep.equal(["inst_227881"]);
    expect(ids(await get("/institutions?type=community_college"))).to.have.members(["inst_119216", "inst_122977"]);
    expect(ids(await get("/institutions?source=channel_a"))).to.have.members(["inst_110635", "inst_110662"]);
    expect(ids(await get("/institutions?q=LOS%20ang"))).to.deep.equal(["inst_110662"]);
    expect(ids(await get("/institutions?q=huntsville"))).to.deep.equal(["inst_227881"]);
    expect(ids(await get("/institutions?q=%25"))).to.deep.equal([]);
  });

  it("listInstitutions and getInstitution keep environments apart", async () => {
    expect(ids(await get("/institutions", t.keys.sandbox))).to.deep.equal(["inst_100654"]);
    await expectContract(await get("/institutions/inst_110635", t.keys.sandbox), 404);
  });

  it("getInstitution reads one institution, 404 for unknown ids", async () => {
    const response = await get("/institutions/inst_110635");
    await expectContract(response, 200);
    expect(response.body.data).to.deep.equal({
      id: "inst_110635",
      ipedsId: "110635",
      name: "University of California-Berkeley",
      city: "Berkeley",
      state: "CA",
      type: "four_year_public",
      system: "University of California",
      source: "channel_a",
    });
    // A bare IPEDS unit id is the same institution (docs/api-guide.md, "Catalog rules").
    const byIpeds = await get("/institutions/110635");
    await expectContract(byIpeds, 200);
    expect(byIpeds.body.data.id).to.equal("inst_110635");
    for (const id of ["inst_999999", "999999", "crs_x"]) {
      const missing = await get(`/institutions/${id}`);
      await expectContract(missing, 404);
      expectProblem(missing, "not-found");
    }
  });

  it("listInstitutions: 400 for filters off the contract", async () => {
    for (const query of ["state=California", "type=university", "source=channel_c", "limit=500"]) {
      const response = await get(`/institutions?${query}`);
      await expectContract(response, 400);
      expectProblem(response, "validation-failed");
    }
  });
});
