import { expect } from "chai";
import {
  newWebhookSecret,
  parseSignatureHeader,
  secretPrefix,
  sign,
  signatureHeader,
  verifySignature,
} from "../../src/webhooks/signing.ts";
import { assertHttpUrl, assertSafeTarget, isPrivateAddress } from "../../src/webhooks/target-safety.ts";

describe("webhook signatures", () => {
  const body = '{"id":"evt_1","type":"course.updated"}';

  it("signs <t>.<raw body> with HMAC-SHA256 in lowercase hex", () => {
    // Independently computed: printf '1700000000.{"id":"evt_1","type":"course.updated"}' | openssl dgst -sha256 -hmac whsec_test
    expect(sign("whsec_test", 1700000000, body)).to.equal(
      "424f0fda71fb53f0dbd18d8d27b05bc4ab036cefb96296deaf28207210cd7010",
    );
    expect(signatureHeader(["whsec_test"], 1700000000, body)).to.equal(
      `t=1700000000,v1=${sign("whsec_test", 1700000000, body)}`,
    );
  });

  it("carries one v1 per secret during a rotation, and verifies with either", () => {
    const header = signatureHeader(["whsec_new", "whsec_old"], 1700000000, body);
    expect(parseSignatureHeader(header)?.signatures).to.have.length(2);
    for (const secret of ["whsec_new", "whsec_old"])
      expect(verifySignature(body, header, secret, { nowSeconds: 1700000100 })).to.equal(true);
    expect(verifySignature(body, header, "whsec_other", { nowSeconds: 1700000100 })).to.equal(false);
  });

  it("refuses a tampered body, a stale timestamp and malformed headers", () => {
    const header = signatureHeader(["whsec_a"], 1700000000, body);
    expect(verifySignature(`${body} `, header, "whsec_a", { nowSeconds: 1700000000 })).to.equal(false);
    expect(verifySignature(body, header, "whsec_a", { nowSeconds: 1700000301 })).to.equal(false);
    expect(verifySignature(body, "v1=abc", "whsec_a")).to.equal(false);
  });

  it("makes whsec_ secrets and shows only a prefix", () => {
    const secret = newWebhookSecret();
    expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(secretPrefix(secret)).to.have.length(10);
  });
});

describe("webhook target safety", () => {
  it("knows loopback, private, link-local and metadata addresses", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "::1",
      "fe80::1",
      "fd12::1",
      "::ffff:10.0.0.1",
      "0.0.0.0",
    ]) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
    for (const address of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"])
      expect(isPrivateAddress(address), address).to.equal(false);
  });

  it("accepts only http(s) URLs without credentials", () => {
    expect(() => assertHttpUrl("ftp://example.org/x")).to.throw("http or https");
    expect(() => assertHttpUrl("https://user:pw@example.org/")).to.throw("credentials");
    expect(() => assertHttpUrl("not a url")).to.throw("valid URL");
    expect(assertHttpUrl("https://example.org/hook").hostname).to.equal("example.org");
  });

  it("checks the resolved addresses unless private targets are allowed", async () => {
    const resolveTo = (addresses: string[]) => async () => addresses;
    await assertSafeTarget("https://hooks.example.org/x", false, resolveTo(["93.184.216.34"]));
    let refused: unknown;
    try {
      await assertSafeTarget("https://rebind.example.org/x", false, resolveTo(["93.184.216.34", "10.0.0.5"]));
    } catch (error) {
      refused = error;
    }
    expect(String(refused)).to.contain("10.0.0.5");
    await assertSafeTarget("http://127.0.0.1:9999/x", true, resolveTo([]));
  });
});
