import { expect } from "chai";
import { RateLimiter } from "../../src/auth/rate-limiter.ts";

describe("rate limiter (token bucket)", () => {
  it("allows a burst up to the bucket size, then refuses with a retry time", () => {
    let now = 0;
    const limiter = new RateLimiter(3, 1, () => now);
    expect([1, 2, 3].map(() => limiter.take("k").allowed)).to.deep.equal([true, true, true]);
    const refused = limiter.take("k");
    expect(refused).to.include({ allowed: false, remaining: 0, limit: 3, retryAfterSeconds: 1 });
    now = 1000;
    expect(limiter.take("k").allowed).to.equal(true);
  });

  it("keeps one bucket per credential and reports seconds until full", () => {
    const now = 0;
    const limiter = new RateLimiter(10, 2, () => now);
    limiter.take("a");
    limiter.take("a");
    const state = limiter.take("a");
    expect(state.remaining).to.equal(7);
    expect(state.resetSeconds).to.equal(2);
    expect(limiter.take("b").remaining).to.equal(9);
  });
});
