// API keys resolved through the short-lived cache: one lookup for many waiting requests,
// and no revoked key cached by a lookup that was under way when it was revoked.
import { expect } from "chai";
import { Authenticator } from "../../src/auth/authenticator.ts";
import { generateApiKey, hashApiKey } from "../../src/auth/api-keys.ts";

type KeyRecord = NonNullable<Awaited<ReturnType<ConstructorParameters<typeof Authenticator>[0]["findApiKeyByHash"]>>>;

function recordFor(key: string, revokedAt: Date | null = null): KeyRecord {
  return {
    id: "key_1",
    hash: hashApiKey(key),
    organizationId: "org_1",
    organization: { slug: "acme", source: "channel_a" },
    environment: "sandbox",
    scopes: ["read:public"],
    revokedAt,
    lastUsedAt: new Date(),
  } as unknown as KeyRecord;
}

/** A repository whose lookups the test answers by hand, counting them. */
function heldRepository() {
  const waiting: Array<(record: KeyRecord | null) => void> = [];
  return {
    waiting,
    repository: {
      findApiKeyByHash: () => new Promise<KeyRecord | null>((resolve) => waiting.push(resolve)),
      markApiKeyUsed: async () => {},
    },
  };
}

describe("Authenticator", () => {
  const key = generateApiKey("sandbox");

  it("answers requests that wait for the same uncached key with one lookup", async () => {
    const { waiting, repository } = heldRepository();
    const authenticator = new Authenticator(repository, null, () => {});
    const answers = Promise.all(Array.from({ length: 32 }, () => authenticator.authenticate(`Bearer ${key}`)));
    await Promise.resolve();
    expect(waiting).to.have.length(1);
    waiting[0](recordFor(key));
    const credentials = await answers;
    expect(new Set(credentials.map((credential) => credential.id))).to.deep.equal(new Set(["key_1"]));
    // Now cached: no further lookup.
    await authenticator.authenticate(`Bearer ${key}`);
    expect(waiting).to.have.length(1);
  });

  it("refuses every waiting request of an unknown key, and looks it up again next time", async () => {
    const { waiting, repository } = heldRepository();
    const authenticator = new Authenticator(repository, null, () => {});
    const answers = Array.from({ length: 3 }, () =>
      authenticator.authenticate(`Bearer ${key}`).then(
        () => "accepted",
        (error: Error) => error.message,
      ),
    );
    await Promise.resolve();
    waiting[0](null);
    expect(await Promise.all(answers)).to.deep.equal(Array(3).fill("The API key is not known."));
    const again = authenticator.authenticate(`Bearer ${key}`).catch(() => {});
    await Promise.resolve();
    expect(waiting).to.have.length(2);
    waiting[1](null);
    await again;
  });

  it("does not cache a key whose lookup was under way when it was forgotten (revoked)", async () => {
    const { waiting, repository } = heldRepository();
    const authenticator = new Authenticator(repository, null, () => {});
    const first = authenticator.authenticate(`Bearer ${key}`);
    await Promise.resolve();
    authenticator.forget("key_1");
    waiting[0](recordFor(key));
    await first;
    // The answer read before the revocation is not remembered: the next request looks again.
    const second = authenticator.authenticate(`Bearer ${key}`).then(
      () => "accepted",
      (error: Error) => error.message,
    );
    await Promise.resolve();
    expect(waiting).to.have.length(2);
    waiting[1](recordFor(key, new Date()));
    expect(await second).to.equal("The API key has been revoked.");
  });
});
