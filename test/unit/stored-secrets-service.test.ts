// The stored-secrets service's passes (countByKeyId, assertEverySecretOpens,
// sealStoredSecrets) against an in-memory secrets repository.
import { expect } from "chai";
import { SecretBox, sealedKeyId } from "../../src/kernel/secret-box.ts";
import { CLEAR, type SealedColumn, type SecretsRepository } from "../../src/repositories/secrets.ts";
import { createStoredSecretsService, StoredSecretsError } from "../../src/services/stored-secrets.ts";

const notUsed = async (): Promise<never> => {
  throw new Error("the stored-secrets service does not use this");
};

/** Every sealed column's values, keyed `${column.column}:${id}`; `interfere` runs before each replacement (a concurrent write). */
function memorySecrets(values: Map<string, string>, interfere: (key: string) => void = () => {}) {
  const keyOf = (column: SealedColumn, id: string) => `${column.column}:${id}`;
  const ofColumn = (column: SealedColumn) =>
    [...values.entries()]
      .filter(([key]) => key.startsWith(`${column.column}:`))
      .map(([key, value]) => ({ id: key.slice(column.column.length + 1), value }));
  const repository: SecretsRepository = {
    findNewestSigningKey: notUsed,
    createSigningKey: notUsed,
    async countByKeyId(column) {
      const counts = new Map<string, number>();
      for (const { value } of ofColumn(column))
        counts.set(sealedKeyId(value) ?? CLEAR, (counts.get(sealedKeyId(value) ?? CLEAR) ?? 0) + 1);
      return [...counts].map(([keyId, count]) => ({ keyId, count }));
    },
    async findValuesToSeal(column, after, exceptKeyId, limit) {
      return ofColumn(column)
        .filter(
          ({ id, value }) =>
            id > after && (exceptKeyId === null ? sealedKeyId(value) === null : sealedKeyId(value) !== exceptKeyId),
        )
        .sort((a, b) => a.id.localeCompare(b.id))
        .slice(0, limit);
    },
    async replaceValueIf(column, id, expected, value) {
      const key = keyOf(column, id);
      interfere(key);
      if (values.get(key) !== expected) return false;
      values.set(key, value);
      return true;
    },
  };
  return repository;
}

describe("stored-secrets service (countByKeyId, assertEverySecretOpens, sealStoredSecrets)", () => {
  const old = new SecretBox(Buffer.alloc(32, 1));
  const current = new SecretBox(Buffer.alloc(32, 2), [Buffer.alloc(32, 1)]);

  it("sealStoredSecrets clear: seals only values in the clear, each under its own record's context", async () => {
    const values = new Map([
      ["secret:wh_1", "whsec_plain"],
      ["secret:wh_2", old.seal("whsec_two", "webhook-secret:wh_2")],
    ]);
    const service = createStoredSecretsService({ secrets: memorySecrets(values) });
    expect(await service.sealStoredSecrets(current, "clear")).to.deep.equal({ sealed: { [CLEAR]: 1 } });
    expect(current.open(values.get("secret:wh_1")!, "webhook-secret:wh_1")).to.equal("whsec_plain");
    expect(sealedKeyId(values.get("secret:wh_2")!)).to.equal(old.keyId);
    expect(await service.countByKeyId()).to.deep.equal({ [current.keyId]: 1, [old.keyId]: 1 });
  });

  it("sealStoredSecrets all: re-seals what an older key sealed, and a value changed meanwhile is left to the concurrent write", async () => {
    const values = new Map([
      ["secret:wh_1", old.seal("whsec_one", "webhook-secret:wh_1")],
      ["secret:wh_2", old.seal("whsec_two", "webhook-secret:wh_2")],
    ]);
    const rotatedMeanwhile = current.seal("whsec_rotated", "webhook-secret:wh_2");
    const service = createStoredSecretsService({
      secrets: memorySecrets(values, (key) => {
        if (key === "secret:wh_2") values.set(key, rotatedMeanwhile);
      }),
    });
    expect(await service.sealStoredSecrets(current, "all")).to.deep.equal({ sealed: { [old.keyId]: 1 } });
    expect(current.open(values.get("secret:wh_1")!, "webhook-secret:wh_1")).to.equal("whsec_one");
    expect(values.get("secret:wh_2")).to.equal(rotatedMeanwhile);
  });

  it("assertEverySecretOpens: refuses a value sealed under a key the box does not hold, naming that key id", async () => {
    const values = new Map([["secret:wh_1", current.seal("whsec_one", "webhook-secret:wh_1")]]);
    const service = createStoredSecretsService({ secrets: memorySecrets(values) });
    await service.assertEverySecretOpens(current, "test keys");
    const refusal = await service.assertEverySecretOpens(old, "test keys").then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(StoredSecretsError);
    expect((refusal as Error).message)
      .to.contain(`sealed under key id ${current.keyId}`)
      .and.contain("(test keys)");
  });
});
