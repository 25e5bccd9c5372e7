import { expect } from "chai";
import { linkHeader, pageParams } from "../../src/http/paging.ts";

describe("paging", () => {
  const url = new URL("http://localhost/api/v1/courses?cip=11&limit=10&offset=20");

  it("defaults to 25 from offset 0", () => {
    expect(pageParams({})).to.deep.equal({ limit: 25, offset: 0 });
  });

  it("links first, prev, next and last, keeping the filters", () => {
    const links = linkHeader(url, { limit: 10, offset: 20 }, 95);
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
    expect(linkHeader(url, { limit: 10, offset: 0 }, 5)).to.not.match(/rel="(prev|next)"/);
    expect(linkHeader(url, { limit: 10, offset: 0 }, 0)).to.contain('offset=0>; rel="last"');
  });
});
