import { expect } from "chai";
import { digestsEqual, generateApiKey, hashApiKey, keyPrefix, parseApiKey } from "../../src/auth/api-keys.ts";

describe("API key format", () => {
  it("generates svc_<env>_<40 url-safe characters>", () => {
    const key = generateApiKey("live");
    expect(key).to.match(/^svc_live_[A-Za-z0-9_-]{40}$/);
    expect(generateApiKey("sandbox")).to.match(/^svc_sandbox_/);
    expect(generateApiKey("live")).to.not.equal(key);
  });

  it("parses its own keys and refuses other shapes", () => {
    const key = generateApiKey("sandbox");
    expect(parseApiKey(key)).to.deep.equal({ environment: "sandbox", hash: hashApiKey(key) });
    for (const bad of [`svc_test_${"a".repeat(40)}`, "svc_live_short", `sk_live_${"a".repeat(40)}`, ""]) {
      expect(parseApiKey(bad), bad).to.equal(null);
    }
  });

  it("keeps a recognisable prefix, never the secret part", () => {
    const key = `svc_live_ABCDEFGH${"x".repeat(32)}`;
    expect(keyPrefix(key)).to.equal("svc_live_ABCDEFGH");
  });

  it("compares digests in constant time and by value", () => {
    const a = hashApiKey("one");
    expect(digestsEqual(a, hashApiKey("one"))).to.equal(true);
    expect(digestsEqual(a, hashApiKey("two"))).to.equal(false);
    expect(digestsEqual(a, "abcd")).to.equal(false);
  });
});
