// verifyWebhook against headers made by the service's own signer.
import { expect } from "chai";
import {
  verifyWebhook,
  WebhookVerificationError,
  type Event,
  type WebhookVerificationFailure,
} from "../../sdk/src/index.ts";
import { signatureHeader } from "../../src/webhooks/signing.ts";

const NOW = 1_767_225_600;
const event = {
  id: "evt_1",
  type: "equivalency.updated",
  created: "2026-01-01T00:00:00Z",
  data: { equivalencyId: "eq_1", version: 2, previousStatus: "pending", status: "accepted", changedFields: ["status"] },
};
const body = JSON.stringify(event);

function failure(run: () => unknown): WebhookVerificationFailure {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
  throw new Error("expected verification to fail");
}

describe("SDK verifyWebhook", () => {
  it("returns the event, typed by its type, for a valid signature", () => {
    const verified: Event = verifyWebhook(body, signatureHeader(["whsec_a"], NOW, body), "whsec_a", {
      nowSeconds: NOW + 10,
    });
    expect(verified).to.deep.equal(event);
    if (verified.type !== "equivalency.updated") throw new Error("narrowing");
    const previous: "pending" | "accepted" | "conflict" = verified.data.previousStatus;
    expect(previous).to.equal("pending");
  });

  it("accepts the raw bytes as a Buffer or Uint8Array", () => {
    const header = signatureHeader(["whsec_a"], NOW, body);
    expect(verifyWebhook(Buffer.from(body), header, "whsec_a", { nowSeconds: NOW }).id).to.equal("evt_1");
    expect(verifyWebhook(new TextEncoder().encode(body), header, "whsec_a", { nowSeconds: NOW }).id).to.equal("evt_1");
  });

  it("accepts any of two v1 values (a secret rotation) and refuses a secret matching neither", () => {
    const header = signatureHeader(["whsec_new", "whsec_old"], NOW, body);
    expect(header.match(/v1=/g)).to.have.length(2);
    for (const secret of ["whsec_new", "whsec_old"])
      expect(verifyWebhook(body, header, secret, { nowSeconds: NOW }).id).to.equal("evt_1");
    expect(failure(() => verifyWebhook(body, header, "whsec_other", { nowSeconds: NOW }))).to.equal(
      "no-matching-signature",
    );
  });

  it("refuses a timestamp outside the tolerance, either way, and honours a custom tolerance", () => {
    const header = signatureHeader(["whsec_a"], NOW, body);
    expect(verifyWebhook(body, header, "whsec_a", { nowSeconds: NOW + 300 }).id).to.equal("evt_1");
    expect(failure(() => verifyWebhook(body, header, "whsec_a", { nowSeconds: NOW + 301 }))).to.equal(
      "timestamp-outside-tolerance",
    );
    expect(failure(() => verifyWebhook(body, header, "whsec_a", { nowSeconds: NOW - 301 }))).to.equal(
      "timestamp-outside-tolerance",
    );
    expect(verifyWebhook(body, header, "whsec_a", { nowSeconds: NOW + 3000, toleranceSeconds: 3600 }).id).to.equal(
      "evt_1",
    );
    expect(failure(() => verifyWebhook(body, header, "whsec_a", { toleranceSeconds: 300 }))).to.equal(
      "timestamp-outside-tolerance",
    );
  });

  it("refuses a tampered body, a tampered timestamp and a tampered signature", () => {
    const header = signatureHeader(["whsec_a"], NOW, body);
    expect(
      failure(() => verifyWebhook(body.replace("accepted", "conflict"), header, "whsec_a", { nowSeconds: NOW })),
    ).to.equal("no-matching-signature");
    expect(failure(() => verifyWebhook(`${body} `, header, "whsec_a", { nowSeconds: NOW }))).to.equal(
      "no-matching-signature",
    );
    const shifted = header.replace(`t=${NOW}`, `t=${NOW + 1}`);
    expect(failure(() => verifyWebhook(body, shifted, "whsec_a", { nowSeconds: NOW }))).to.equal(
      "no-matching-signature",
    );
    const flipped = header.slice(0, -1) + (header.endsWith("0") ? "1" : "0");
    expect(failure(() => verifyWebhook(body, flipped, "whsec_a", { nowSeconds: NOW }))).to.equal(
      "no-matching-signature",
    );
  });

  it("refuses malformed headers and a body that is not JSON", () => {
    for (const header of ["", null, undefined, "v1=abc", `t=${NOW}`, `t=${NOW},v1=xyz`, `t=now,v1=${"0".repeat(64)}`]) {
      expect(
        failure(() => verifyWebhook(body, header, "whsec_a", { nowSeconds: NOW })),
        String(header),
      ).to.equal("malformed-header");
    }
    const text = "not json";
    expect(
      failure(() => verifyWebhook(text, signatureHeader(["whsec_a"], NOW, text), "whsec_a", { nowSeconds: NOW })),
    ).to.equal("malformed-body");
  });
});
