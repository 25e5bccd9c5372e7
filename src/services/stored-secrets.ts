// Every column that holds a sealed secret, and the passes over them: sealing
// what is still in the clear (at start, after an upgrade), re-sealing
// everything under the current key (`secrets rotate`), and counting values by
// key id (`secrets status`, and the start-up check that every value opens).
// A new kind of secret (SSO client secrets, say) is one more entry in
// SEALED_COLUMNS.
import type { Db } from "./types.ts";
import { type SecretBox, sealedKeyId } from "../auth/secret-box.ts";

export interface SealedColumn {
  table: string;
  idColumn: string;
  column: string;
  /** The context a value is sealed with: its purpose and record, so it opens nowhere else. */
  context(id: string): string;
}

export const webhookSecretContext = (endpointId: string) => `webhook-secret:${endpointId}`;
export const signingKeyContext = (kid: string) => `signing-key:${kid}`;

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: "webhook_endpoints", idColumn: "id", column: "secret", context: webhookSecretContext },
  { table: "webhook_endpoints", idColumn: "id", column: "previous_secret", context: webhookSecretContext },
  { table: "signing_keys", idColumn: "kid", column: "private_jwk", context: signingKeyContext },
];

const BATCH = 500;
/** Stands for values in the clear in counts by key id. */
export const CLEAR = "clear";

export class StoredSecretsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoredSecretsError";
  }
}

/** How many stored values each key id sealed (CLEAR: not sealed). */
export async function countByKeyId(db: Db): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { table, column } of SEALED_COLUMNS) {
    const rows = await db.$queryRawUnsafe<{ key_id: string; n: number }[]>(
      `SELECT CASE WHEN "${column}" LIKE 'v1:%' THEN split_part("${column}", ':', 2) ELSE '${CLEAR}' END AS key_id, count(*)::int AS n
       FROM "${table}" WHERE "${column}" IS NOT NULL GROUP BY 1`,
    );
    for (const row of rows) counts[row.key_id] = (counts[row.key_id] ?? 0) + row.n;
  }
  return counts;
}

/** Refuses to go on when some stored value is sealed under a key the box does not hold. */
export async function assertEverySecretOpens(db: Db, box: SecretBox, source: string): Promise<void> {
  const unknown = Object.keys(await countByKeyId(db)).filter((keyId) => keyId !== CLEAR && !box.keyIds.includes(keyId));
  if (unknown.length) {
    throw new StoredSecretsError(
      `Stored secrets are sealed under key id ${unknown.join(", ")}, which the configured keys (${source}) do not include ` +
        `(they hold ${box.keyIds.join(", ")}). Restore the key that sealed them, or add it to SVC_SECRETS_OLD_KEYS.`,
    );
  }
}

export interface SealSummary {
  /** Values sealed under the current key, by the key id they had before (CLEAR: were in the clear). */
  sealed: Record<string, number>;
}

/**
 * Seals stored values under the current key: only those in the clear
 * ("clear", what an upgrade leaves), or every value not already under the
 * current key ("all", a rotation). Each value is replaced only if unchanged
 * since it was read, so a concurrent write (a webhook secret rotation) wins
 * and is not overwritten. Idempotent.
 */
export async function sealStoredSecrets(db: Db, box: SecretBox, which: "clear" | "all"): Promise<SealSummary> {
  const sealed: Record<string, number> = {};
  for (const column of SEALED_COLUMNS) {
    for (let after = ""; ; ) {
      const rows = await db.$queryRawUnsafe<{ id: string; value: string }[]>(
        `SELECT "${column.idColumn}" AS id, "${column.column}" AS value FROM "${column.table}"
         WHERE "${column.idColumn}" > $1 AND "${column.column}" IS NOT NULL AND "${column.column}" NOT LIKE $2
         ORDER BY "${column.idColumn}" LIMIT ${BATCH}`,
        after,
        which === "clear" ? "v1:%" : `v1:${box.keyId}:%`,
      );
      for (const { id, value } of rows) {
        const context = column.context(id);
        const previousKey = sealedKeyId(value) ?? CLEAR;
        const plaintext = previousKey === CLEAR ? value : box.open(value, context);
        const updated = await db.$executeRawUnsafe(
          `UPDATE "${column.table}" SET "${column.column}" = $1 WHERE "${column.idColumn}" = $2 AND "${column.column}" = $3`,
          box.seal(plaintext, context),
          id,
          value,
        );
        if (updated) sealed[previousKey] = (sealed[previousKey] ?? 0) + 1;
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1].id;
    }
  }
  return { sealed };
}
