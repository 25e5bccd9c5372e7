import { expect } from "chai";
import { MAX_JSON_DEPTH, tooDeepAt } from "../../src/pipeline/json-depth.ts";

describe("JSON depth scan", () => {
  const arrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

  it("counts the body itself as level 1 and allows 64 levels", () => {
    expect(MAX_JSON_DEPTH).to.equal(64);
    expect(tooDeepAt(arrays(64))).to.equal(null);
    expect(tooDeepAt(arrays(65))).to.equal("/0".repeat(64));
    expect(tooDeepAt("1")).to.equal(null);
  });

  it("points through array indexes and escaped member names", () => {
    expect(tooDeepAt(`[1, "x", {"a": 2, "b/c": [[0, ${arrays(3)}]]}]`, 4)).to.equal("/2/b~1c/0/1");
    expect(tooDeepAt(`{"q\\"~": {"\\u0041": [[]]}}`, 3)).to.equal('/q"~0/A/0');
  });

  it("ignores brackets, commas and escaped quotes inside strings", () => {
    expect(tooDeepAt(`["[[[[", "\\"[[[[", {"{{": ",,]]"}]`, 2)).to.equal(null);
    expect(tooDeepAt(`[",", [[]]]`, 2)).to.equal("/1/0");
  });

  it("scans a megabyte of brackets without recursion and stops at the limit", () => {
    expect(tooDeepAt("[".repeat(1_000_000))).to.equal("/0".repeat(64));
    expect(tooDeepAt("{".repeat(1_000_000))).to.equal("/".repeat(64));
  });
});
