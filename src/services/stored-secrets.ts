// The passes over every stored secret (see repositories/secrets.ts for the
// columns): sealing what is still in the clear (at start, after an upgrade),
// re-sealing everything under the current key (`secrets rotate`), and counting
// values by key id (`secrets status`, and the start-up check that every value
// opens). The box is an argument, not a dependency: a rotation seals under a
// box made during the command.
import type { Repositories } from "../repositories/index.ts";
import { CLEAR, SEALED_COLUMNS } from "../repositories/secrets.ts";
import { type SecretBox, sealedKeyId } from "../kernel/secret-box.ts";

const BATCH = 500;
export { CLEAR };

export class StoredSecretsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoredSecretsError";
  }
}

export interface SealSummary {
  /** Values sealed under the current key, by the key id they had before (CLEAR: were in the clear). */
  sealed: Record<string, number>;
}

export function createStoredSecretsService({ secrets }: Pick<Repositories, "secrets">) {
  /** How many stored values each key id sealed (CLEAR: not sealed). */
  async function countByKeyId(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const column of SEALED_COLUMNS) {
      for (const { keyId, count } of await secrets.countByKeyId(column)) counts[keyId] = (counts[keyId] ?? 0) + count;
    }
    return counts;
  }

  return {
    countByKeyId,

    /** Refuses to go on when some stored value is sealed under a key the box does not hold. */
    async assertEverySecretOpens(box: SecretBox, source: string): Promise<void> {
      const unknown = Object.keys(await countByKeyId()).filter(
        (keyId) => keyId !== CLEAR && !box.keyIds.includes(keyId),
      );
      if (unknown.length) {
        throw new StoredSecretsError(
          `Stored secrets are sealed under key id ${unknown.join(", ")}, which the configured keys (${source}) do not include ` +
            `(they hold ${box.keyIds.join(", ")}). Restore the key that sealed them, or add it to SVC_SECRETS_OLD_KEYS.`,
        );
      }
    },

    /**
     * Seals stored values under the current key: only those in the clear
     * ("clear", what an upgrade leaves), or every value not already under the
     * current key ("all", a rotation). Each value is replaced only if unchanged
     * since it was read, so a concurrent write (a webhook secret rotation) wins
     * and is not overwritten. Idempotent.
     */
    async sealStoredSecrets(box: SecretBox, which: "clear" | "all"): Promise<SealSummary> {
      const sealed: Record<string, number> = {};
      for (const column of SEALED_COLUMNS) {
        for (let after = ""; ; ) {
          const rows = await secrets.findValuesToSeal(column, after, which === "clear" ? null : box.keyId, BATCH);
          for (const { id, value } of rows) {
            const context = column.context(id);
            const previousKey = sealedKeyId(value) ?? CLEAR;
            const plaintext = previousKey === CLEAR ? value : box.open(value, context);
            if (await secrets.replaceValueIf(column, id, value, box.seal(plaintext, context)))
              sealed[previousKey] = (sealed[previousKey] ?? 0) + 1;
          }
          if (rows.length < BATCH) break;
          after = rows[rows.length - 1].id;
        }
      }
      return { sealed };
    },
  };
}

export type StoredSecretsService = ReturnType<typeof createStoredSecretsService>;
