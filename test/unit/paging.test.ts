import { expect } from "chai";
import { SecretBox } from "../../src/kernel/secret-box.ts";
import { InvalidCursorError } from "../../src/kernel/errors.ts";
import { linkHeader, pageParams, type PageParams } from "../../src/handlers/paging.ts";
import { afterCondition, pageFromRows, type Order } from "../../src/repositories/paging.ts";
import { createCursors } from "../../src/kernel/paging.ts";

describe("paging", () => {
  const url = new URL("http://localhost/api/v1/courses?cip=11&limit=10&offset=20");
  const cursors = createCursors(new SecretBox(Buffer.alloc(32, 7)));
  const caller: { organizationId: string; environment: "live" | "sandbox" } = {
    organizationId: "org_a",
    environment: "live",
  };
  const context = { caller, services: { cursors } };
  const byOffset = (limit: number, offset: number): PageParams => ({
    limit,
    offset,
    byCursor: false,
    cursorOnly: false,
    cursorOf: () => "c",
  });

  it("defaults to 25 from offset 0, without a cursor", () => {
    const page = pageParams({ query: {}, url }, context);
    expect({ limit: page.limit, offset: page.offset, after: page.after, byCursor: page.byCursor }).to.deep.equal({
      limit: 25,
      offset: 0,
      after: undefined,
      byCursor: false,
    });
  });

  it("links first, prev, next and last, keeping the filters", () => {
    const links = linkHeader(url, byOffset(10, 20), 95);
    expect(links).to.equal(
      [
        '</api/v1/courses?cip=11&limit=10&offset=0>; rel="first"',
        '</api/v1/courses?cip=11&limit=10&offset=10>; rel="prev"',
        '</api/v1/courses?cip=11&limit=10&offset=30>; rel="next"',
        '</api/v1/courses?cip=11&limit=10&offset=90>; rel="last"',
      ].join(", "),
    );
  });

  it("omits prev on the first page and next on the last", () => {
    expect(linkHeader(url, byOffset(10, 0), 5)).to.not.match(/rel="(prev|next)"/);
    expect(linkHeader(url, byOffset(10, 0), 0)).to.contain('offset=0>; rel="last"');
  });

  it("opens the cursor it sealed for the same list, organization, environment and filters", () => {
    const key = [new Date("2025-02-10T17:05:00.123Z"), "eq_1", 7];
    const cursor = pageParams({ query: {}, url }, context).cursorOf(key);
    const page = pageParams({ query: { after: cursor }, url: new URL(`${url.origin}/api/v1/courses?cip=11`) }, context);
    expect(page.after).to.deep.equal(key);
    expect(page.byCursor).to.equal(true);
  });

  it("refuses a cursor of another list, organization, environment or filters, and an altered or malformed one", () => {
    const cursor = pageParams({ query: {}, url }, context).cursorOf(["a", "b"]);
    const open =
      (at: string, who = caller, after = cursor) =>
      () =>
        pageParams({ query: { after }, url: new URL(`http://localhost${at}`) }, { caller: who, services: { cursors } });
    expect(open("/api/v1/courses?cip=11")).to.not.throw();
    expect(open("/api/v1/institutions?cip=11")).to.throw(InvalidCursorError);
    expect(open("/api/v1/courses?cip=12")).to.throw(InvalidCursorError);
    expect(open("/api/v1/courses")).to.throw(InvalidCursorError);
    expect(open("/api/v1/courses?cip=11", { ...caller, environment: "sandbox" as const })).to.throw(InvalidCursorError);
    expect(open("/api/v1/courses?cip=11", { ...caller, organizationId: "org_b" })).to.throw(InvalidCursorError);
    const [payload, tag] = cursor.split(".");
    const altered = `${Buffer.from('["a","c"]').toString("base64url")}.${tag}`;
    expect(open("/api/v1/courses?cip=11", caller, altered)).to.throw(InvalidCursorError);
    expect(open("/api/v1/courses?cip=11", caller, `${payload}.${tag.slice(1)}x`)).to.throw(InvalidCursorError);
    expect(open("/api/v1/courses?cip=11", caller, "garbage")).to.throw(InvalidCursorError);
    const otherKey = createCursors(new SecretBox(Buffer.alloc(32, 8)));
    expect(() =>
      pageParams(
        { query: { after: cursor }, url: new URL("http://localhost/api/v1/courses?cip=11") },
        { caller, services: { cursors: otherKey } },
      ),
    ).to.throw(InvalidCursorError);
  });

  it("after a cursor, links the first page and the next page by cursor only", () => {
    const page = { ...byOffset(10, 0), byCursor: true };
    const at = new URL("http://localhost/api/v1/courses?cip=11&after=abc.def&limit=10");
    expect(linkHeader(at, page, 95, "n.x")).to.equal(
      [
        '</api/v1/courses?cip=11&limit=10&offset=0>; rel="first"',
        '</api/v1/courses?cip=11&after=n.x&limit=10>; rel="next"',
      ].join(", "),
    );
    expect(linkHeader(at, page, 95, null)).to.equal('</api/v1/courses?cip=11&limit=10&offset=0>; rel="first"');
  });

  it("builds the keyset condition with a leading bound, in either direction", () => {
    const order: Order = [
      ["createdAt", "desc"],
      ["id", "desc"],
    ];
    const at = new Date(5);
    expect(afterCondition(order, [at, "x"])).to.deep.equal({
      AND: [
        { createdAt: { lte: at } },
        { OR: [{ createdAt: { lt: at } }, { AND: [{ createdAt: at }, { id: { lt: "x" } }] }] },
      ],
    });
    expect(afterCondition([["sequence", "desc"]], [3])).to.deep.equal({ sequence: { lt: 3 } });
    expect(() => afterCondition(order, ["x"])).to.throw(InvalidCursorError);
  });

  it("keeps a page's rows and the key of its last row when one more row came back", () => {
    const order: Order = [["id", "asc"]];
    const rows = [{ id: "a" }, { id: "b" }, { id: "c" }];
    expect(pageFromRows({ limit: 2, offset: 0 }, order, rows, 3)).to.deep.equal({
      items: rows.slice(0, 2),
      total: 3,
      next: ["b"],
    });
    expect(pageFromRows({ limit: 3, offset: 0 }, order, rows, 3).next).to.equal(null);
  });
});
