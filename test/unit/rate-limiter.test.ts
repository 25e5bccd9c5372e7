import { expect } from "chai";
import type { Credential } from "../../src/auth/credential.ts";
import { MemoryRateLimitStore, type Bucket } from "../../src/auth/rate-limit-store.ts";
import { RateLimiter, type RateLimitDecision, type RateLimitRules } from "../../src/auth/rate-limiter.ts";
import { clientAddressKey } from "../../src/auth/client-address.ts";

const rule = (burst: number, refillPerSecond: number) => ({ burst, refillPerSecond });

function credential(id: string, organizationId = "org_a", environment: Credential["environment"] = "live"): Credential {
  return {
    kind: "api_key",
    id,
    organizationId,
    organizationSlug: organizationId,
    channel: "direct",
    environment,
    scopes: ["read:public"],
  };
}

function sync(decision: RateLimitDecision | Promise<RateLimitDecision>): RateLimitDecision {
  if (decision instanceof Promise) throw new Error("the memory store answers synchronously");
  return decision;
}

describe("rate limits: memory store (token buckets)", () => {
  it("allows a burst up to the bucket size, then refuses with a retry time, and refills continuously", () => {
    let now = 0;
    const store = new MemoryRateLimitStore(() => now);
    const bucket: Bucket[] = [{ key: "k", rule: rule(3, 1) }];
    expect([1, 2, 3].map(() => store.take(bucket).allowed)).to.deep.equal([true, true, true]);
    expect(store.take(bucket)).to.deep.equal({
      allowed: false,
      readings: [{ remaining: 0, resetSeconds: 3, retryAfterSeconds: 1 }],
    });
    now = 999;
    expect(store.take(bucket).allowed).to.equal(false);
    now = 1000;
    expect(store.take(bucket)).to.deep.equal({
      allowed: true,
      readings: [{ remaining: 0, resetSeconds: 3, retryAfterSeconds: 1 }],
    });
  });

  it("keeps one bucket per key and reports seconds until full", () => {
    const store = new MemoryRateLimitStore(() => 0);
    const a: Bucket[] = [{ key: "a", rule: rule(10, 2) }];
    store.take(a);
    store.take(a);
    expect(store.take(a).readings[0]).to.deep.equal({ remaining: 7, resetSeconds: 2, retryAfterSeconds: 0 });
    expect(store.take([{ key: "b", rule: rule(10, 2) }]).readings[0].remaining).to.equal(9);
  });

  it("takes from every bucket or from none: an empty bucket refuses without draining the others", () => {
    const store = new MemoryRateLimitStore(() => 0);
    const small = { key: "small", rule: rule(1, 0.01) };
    const large = { key: "large", rule: rule(5, 0.01) };
    expect(store.take([small, large]).allowed).to.equal(true);
    const refused = store.take([small, large]);
    expect(refused.allowed).to.equal(false);
    expect(refused.readings.map((r) => r.remaining)).to.deep.equal([0, 4]);
    expect(store.take([large]).readings[0].remaining).to.equal(3);
  });

  it("refills nothing when the clock steps back, and forgets full buckets without changing any answer", () => {
    let now = 10_000;
    const store = new MemoryRateLimitStore(() => now);
    const bucket: Bucket[] = [{ key: "k", rule: rule(2, 1) }];
    store.take(bucket);
    store.take(bucket);
    now = 5_000;
    expect(store.take(bucket).allowed).to.equal(false);
    now = 12_000;
    expect(store.take(bucket).readings[0].remaining).to.equal(1);
    now = 200_000; // past the sweep: the bucket is dropped, and reads as full, as it would have
    expect(store.take([{ key: "other", rule: rule(2, 1) }]).allowed).to.equal(true);
    expect(store.take(bucket).readings[0]).to.deep.equal({ remaining: 1, resetSeconds: 1, retryAfterSeconds: 0 });
  });
});

describe("rate limits: which buckets a request draws from", () => {
  const rules: RateLimitRules = {
    credential: rule(5, 0.01),
    organization: rule(8, 0.01),
    authFailures: rule(2, 0.1),
    tokenEndpoint: rule(3, 0.01),
    signIn: rule(2, 0.01),
  };
  let now: number;
  let limiter: RateLimiter;
  beforeEach(() => {
    now = 1_000_000;
    const clock = () => now;
    limiter = new RateLimiter(rules, new MemoryRateLimitStore(clock), { publicSandboxKeyId: "key_public", clock });
  });

  it("a credential and its organization (per environment): more keys do not raise the organization's budget", () => {
    const allowed = (id: string, environment: Credential["environment"] = "live") =>
      sync(limiter.forCredential(credential(id, "org_a", environment), "10.0.0.1")).allowed;
    expect([1, 2, 3, 4, 5].map(() => allowed("key_1"))).to.deep.equal([true, true, true, true, true]);
    expect(allowed("key_1")).to.equal(false);
    expect([1, 2, 3].map(() => allowed("key_2"))).to.deep.equal([true, true, true]);
    const refused = sync(limiter.forCredential(credential("key_3"), "10.0.0.1"));
    expect(refused).to.include({ allowed: false, limit: 8, remaining: 0, subject: "for this organization in live" });
    expect(refused.retryAfterSeconds).to.equal(100);
    expect(allowed("key_4", "sandbox")).to.equal(true);
    expect(sync(limiter.forCredential(credential("key_9", "org_b"), "10.0.0.1")).allowed).to.equal(true);
  });

  it("reports the tighter bucket: the fewest remaining, then the longer wait", () => {
    const first = sync(limiter.forCredential(credential("key_1"), "10.0.0.1"));
    expect(first).to.include({ limit: 5, remaining: 4 });
    for (let i = 0; i < 5; i++) sync(limiter.forCredential(credential("key_2"), "10.0.0.1"));
    // key_1: 3 left of 5; the organization: 8 - 7 = 1 left.
    expect(sync(limiter.forCredential(credential("key_1"), "10.0.0.1"))).to.include({
      limit: 8,
      remaining: 1,
      resetSeconds: 700,
    });
  });

  it("keeps the public sandbox key's bucket per client address, outside any organization's", () => {
    const publicKey = credential("key_public", "org_public");
    for (let i = 0; i < 5; i++) expect(sync(limiter.forCredential(publicKey, "10.0.0.1")).allowed).to.equal(true);
    expect(sync(limiter.forCredential(publicKey, "10.0.0.1"))).to.include({
      allowed: false,
      subject: "for this key from this address",
    });
    expect(sync(limiter.forCredential(publicKey, "10.0.0.2"))).to.include({ allowed: true, remaining: 4 });
  });

  it("throttles token requests per address", () => {
    expect([1, 2, 3, 4].map(() => sync(limiter.tokenRequest("10.0.0.1")).allowed)).to.deep.equal([
      true,
      true,
      true,
      false,
    ]);
    expect(sync(limiter.tokenRequest("10.0.0.2")).allowed).to.equal(true);
  });

  it("blocks an address whose failed authentications emptied its bucket, until a token has refilled", () => {
    expect(limiter.blockedAddress("10.0.0.1")).to.equal(null);
    expect(sync(limiter.authenticationFailed("10.0.0.1"))).to.include({ allowed: true, remaining: 1 });
    expect(limiter.blockedAddress("10.0.0.1")).to.equal(null);
    expect(sync(limiter.authenticationFailed("10.0.0.1"))).to.include({ allowed: true, remaining: 0 });
    expect(limiter.blockedAddress("10.0.0.1")).to.deep.equal({
      allowed: false,
      subject: "with failed authentication from this address",
      limit: 2,
      remaining: 0,
      resetSeconds: 20,
      retryAfterSeconds: 10,
    });
    expect(limiter.blockedAddress("10.0.0.2")).to.equal(null);
    now += 9_999;
    expect(limiter.blockedAddress("10.0.0.1")).to.include({ retryAfterSeconds: 1 });
    now += 1;
    expect(limiter.blockedAddress("10.0.0.1")).to.equal(null);
    // Successful requests from the address drew nothing from its failure bucket.
    expect(sync(limiter.forCredential(credential("key_1"), "10.0.0.1")).allowed).to.equal(true);
    expect(sync(limiter.authenticationFailed("10.0.0.1"))).to.include({ allowed: true, remaining: 0 });
  });
});

describe("rate limits: client address", () => {
  it("counts IPv4 as itself, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64 network", () => {
    expect(clientAddressKey("203.0.113.7")).to.equal("203.0.113.7");
    expect(clientAddressKey("::ffff:127.0.0.1")).to.equal("127.0.0.1");
    expect(clientAddressKey("2001:db8:1:2:3:4:5:6")).to.equal("2001:db8:1:2::/64");
    expect(clientAddressKey("2001:0db8:0001:0002::ffff")).to.equal("2001:db8:1:2::/64");
    expect(clientAddressKey("2001:db8::1")).to.equal("2001:db8:0:0::/64");
    expect(clientAddressKey("::1")).to.equal("0:0:0:0::/64");
    expect(clientAddressKey("fe80::1%eth0")).to.equal("fe80:0:0:0::/64");
    expect(clientAddressKey("64:ff9b::192.0.2.33")).to.equal("64:ff9b:0:0::/64");
    expect(clientAddressKey(undefined)).to.equal("unknown");
  });
});
