// The keys service's rules (createKey, listKeys, revokeKey) against an in-memory credentials repository.
import { expect } from "chai";
import type { ApiKey } from "../../generated/prisma/client.ts";
import type { Credential } from "../../src/auth/credential.ts";
import { hashApiKey } from "../../src/auth/api-keys.ts";
import type { CredentialsRepository, NewApiKeyRecord } from "../../src/repositories/credentials.ts";
import { createKeysService } from "../../src/services/keys.ts";
import type { Environment, Page } from "../../src/services/types.ts";
import { rejection } from "../helpers/services.ts";
import type { AuditRepository, NewAuditEntry } from "../../src/repositories/audit.ts";
import type { TransactionRepositories } from "../../src/repositories/index.ts";
import { runAsChange } from "../../src/services/change-origin.ts";

const CREATED_AT = new Date("2026-01-01T00:00:00Z");
const REVOKED_AT = new Date("2026-02-01T00:00:00Z");
const LATER = new Date("2026-03-01T00:00:00Z");

function memoryCredentials() {
  const keys = new Map<string, ApiKey>();
  const notForKeys = async (): Promise<never> => {
    throw new Error("the keys service does not touch OAuth clients");
  };
  const repository: CredentialsRepository = {
    createOAuthClient: notForKeys,
    findOAuthClientByEitherId: notForKeys,
    listOAuthClients: notForKeys,
    listOAuthClientsPage: notForKeys,
    markOAuthClientRevoked: notForKeys,
    findOAuthClientByClientId: notForKeys,
    findOAuthClientById: notForKeys,
    markOAuthClientUsed: notForKeys,
    findApiKeyByHash: notForKeys,
    markApiKeyUsed: notForKeys,
    async createApiKey(record: NewApiKeyRecord) {
      const key: ApiKey = { ...record, createdAt: CREATED_AT, lastUsedAt: null, revokedAt: null };
      keys.set(key.id, key);
      return key;
    },
    async findApiKeyById(id: string) {
      return keys.get(id) ?? null;
    },
    async listApiKeysPage(organizationId: string, environment: Environment | undefined, page: Page) {
      const all = [...keys.values()].filter(
        (key) => key.organizationId === organizationId && (!environment || key.environment === environment),
      );
      return { items: all.slice(page.offset, page.offset + page.limit), total: all.length, next: null };
    },
    async markApiKeyRevoked(id: string, revokedAt: Date) {
      const revoked = { ...keys.get(id)!, revokedAt };
      keys.set(id, revoked);
      return revoked;
    },
  };
  return { keys, repository };
}

function caller(overrides: Partial<Credential> = {}): Credential {
  return {
    kind: "api_key",
    id: "key_caller",
    organizationId: "org_acme",
    organizationSlug: "acme",
    channel: "channel_a",
    environment: "live",
    scopes: ["read:public", "write:contribute"],
    ...overrides,
  };
}

describe("keys service (createKey, listKeys, revokeKey)", () => {
  function setup(clock: () => Date = () => REVOKED_AT) {
    const store = memoryCredentials();
    const forgotten: string[] = [];
    const audited: NewAuditEntry[] = [];
    const audit = {
      appendMany: async (entries: NewAuditEntry[]) => void audited.push(...entries),
    } as unknown as AuditRepository;
    const service = createKeysService({
      credentials: store.repository,
      // One "transaction": the writes and the audit entry go through the same repositories.
      transaction: (work) => work({ credentials: store.repository, audit } as unknown as TransactionRepositories),
      forgetCredential: (id) => forgotten.push(id),
      now: clock,
    });
    return { ...store, forgotten, audited, service };
  }

  it("createKey stores only the hash and returns the plaintext once", async () => {
    const { keys, service } = setup();
    const { view, key } = await service.createKey(caller(), { name: "ci" });
    expect(keys.get(view.id)!.hash).to.equal(hashApiKey(key));
    expect(view).to.not.have.property("hash");
    expect(view).to.include({ environment: "live", name: "ci", revokedAt: null });
    expect(view.scopes).to.deep.equal(["read:public", "write:contribute"]);
  });

  it("createKey refuses another environment and scopes the caller does not hold", async () => {
    const { keys, service } = setup();
    const otherEnvironment = await rejection(service.createKey(caller(), { environment: "sandbox" }));
    expect(otherEnvironment.slug).to.equal("forbidden");
    expect(otherEnvironment.message).to.equal("A live credential cannot create a sandbox key.");
    const readOnly = caller({ scopes: ["read:public"] });
    const wider = await rejection(service.createKey(readOnly, { scopes: ["read:public", "write:contribute"] }));
    expect(wider.slug).to.equal("forbidden");
    expect(wider.message).to.contain("write:contribute");
    expect(keys.size).to.equal(0);
  });

  it("issueKey refuses an empty or unknown scope list", async () => {
    const { service } = setup();
    for (const scopes of [[], ["admin"]]) {
      const problem = await rejection(service.issueKey({ organizationId: "org_acme", environment: "live", scopes }));
      expect(problem.slug).to.equal("validation-failed");
      expect(problem.extensions.errors).to.deep.equal([
        { pointer: "/scopes", message: "scopes must be a non-empty list of read:public, write:contribute" },
      ]);
    }
  });

  it("listKeys shows the caller's organization and environment only", async () => {
    const { service } = setup();
    const own = await service.issueKey({ organizationId: "org_acme", environment: "live" });
    await service.issueKey({ organizationId: "org_acme", environment: "sandbox" });
    await service.issueKey({ organizationId: "org_other", environment: "live" });
    const { items, total } = await service.listKeys(caller(), { limit: 10, offset: 0 });
    expect(items.map((item) => item.id)).to.deep.equal([own.view.id]);
    expect(total).to.equal(1);
  });

  it("revokeKey answers not-found for another organization's or environment's key, and leaves it working", async () => {
    const { keys, forgotten, service } = setup();
    const other = await service.issueKey({ organizationId: "org_other", environment: "live" });
    const sandbox = await service.issueKey({ organizationId: "org_acme", environment: "sandbox" });
    for (const id of [other.view.id, sandbox.view.id, "key_missing"]) {
      const problem = await rejection(service.revokeKey(caller(), id));
      expect(problem.slug).to.equal("not-found");
      expect(problem.message).to.equal(`No API key with id "${id}".`);
    }
    expect(keys.get(other.view.id)!.revokedAt).to.equal(null);
    expect(forgotten).to.deep.equal([]);
  });

  it("revokeKey forgets the cached credential, and revoking twice keeps the first revocation time", async () => {
    let now = REVOKED_AT;
    const { forgotten, service } = setup(() => now);
    const { view } = await service.issueKey({ organizationId: "org_acme", environment: "live" });
    expect((await service.revokeKey(caller(), view.id)).revokedAt).to.equal(REVOKED_AT.toISOString());
    now = LATER;
    expect((await service.revokeKey(caller(), view.id)).revokedAt).to.equal(REVOKED_AT.toISOString());
    expect(forgotten).to.deep.equal([view.id, view.id]);
  });

  it("a key's creation and revocation each append one audit entry naming the key, with the origin's actor and ids", async () => {
    const { service, audited } = setup();
    const origin = { actor: caller(), operationId: "createKey", requestId: "req_own", clientRequestId: "etl-7" };
    const { result: created, entries } = await runAsChange(origin, () => service.createKey(caller(), { name: "n" }));
    expect(entries).to.equal(1);
    expect(audited[0]).to.include({
      organizationId: "org_acme",
      actorKind: "api_key",
      actorId: "key_caller",
      operationId: "createKey",
      targetType: "key",
      targetId: created.view.id,
      environment: "live",
      requestId: "req_own",
      clientRequestId: "etl-7",
    });
    const revoke = { ...origin, operationId: "revokeKey" };
    await runAsChange(revoke, () => service.revokeKey(caller(), created.view.id));
    const again = await runAsChange(revoke, () => service.revokeKey(caller(), created.view.id));
    // Revoking a revoked key changes nothing: no second entry, and the pipeline owes none.
    expect(again).to.include({ entries: 0, unchanged: true });
    expect(audited.map((entry) => [entry.operationId, entry.targetId])).to.deep.equal([
      ["createKey", created.view.id],
      ["revokeKey", created.view.id],
    ]);
    // Outside any origin (fixtures, seed scripts) nothing is appended.
    await service.createKey(caller(), {});
    expect(audited).to.have.length(2);
  });

  it("revokeAnyKey (the operator's CLI) revokes a key of any organization", async () => {
    const { service } = setup();
    const other = await service.issueKey({ organizationId: "org_other", environment: "sandbox" });
    expect((await service.revokeAnyKey(other.view.id)).revokedAt).to.equal(REVOKED_AT.toISOString());
  });
});
