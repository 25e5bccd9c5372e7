// Stored secrets: the token-signing keys, and every column that holds a
// sealed value, with the passes over them (counting by key id, reading a
// batch to re-seal, replacing a value only if unchanged). A new kind of
// secret (SSO client secrets, say) is one more entry in SEALED_COLUMNS.
import type { Executor } from "./executor.ts";
import type { Prisma, SigningKey } from "../../generated/prisma/client.ts";

/** The contexts stored values are sealed with: their purpose and record, so a value opens nowhere else. */
export const webhookSecretContext = (endpointId: string) => `webhook-secret:${endpointId}`;
export const signingKeyContext = (kid: string) => `signing-key:${kid}`;
export const ssoClientSecretContext = (connectionId: string) => `sso-client-secret:${connectionId}`;

export interface SealedColumn {
  table: string;
  idColumn: string;
  column: string;
  /** The context a value is sealed with: its purpose and record, so it opens nowhere else. */
  context(id: string): string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: "webhook_endpoints", idColumn: "id", column: "secret", context: webhookSecretContext },
  { table: "webhook_endpoints", idColumn: "id", column: "previous_secret", context: webhookSecretContext },
  { table: "signing_keys", idColumn: "kid", column: "private_jwk", context: signingKeyContext },
  { table: "sso_connections", idColumn: "id", column: "oidc_client_secret", context: ssoClientSecretContext },
];

/** Stands for values in the clear in counts by key id. */
export const CLEAR = "clear";

export function createSecretsRepository(db: Executor) {
  return {
    /** The newest token-signing key, if any. */
    findNewestSigningKey(): Promise<SigningKey | null> {
      return db.signingKey.findFirst({ orderBy: { createdAt: "desc" } });
    },

    createSigningKey(record: {
      kid: string;
      privateJwk: string;
      publicJwk: Prisma.InputJsonValue;
    }): Promise<SigningKey> {
      return db.signingKey.create({ data: record });
    },

    /** How many values of the column each key id sealed (CLEAR: not sealed). */
    async countByKeyId(column: SealedColumn): Promise<{ keyId: string; count: number }[]> {
      const rows = await db.$queryRawUnsafe<{ key_id: string; n: number }[]>(
        `SELECT CASE WHEN "${column.column}" LIKE 'v1:%' THEN split_part("${column.column}", ':', 2) ELSE '${CLEAR}' END AS key_id, count(*)::int AS n
         FROM "${column.table}" WHERE "${column.column}" IS NOT NULL GROUP BY 1`,
      );
      return rows.map((row) => ({ keyId: row.key_id, count: row.n }));
    },

    /**
     * Up to `limit` values of the column, by record id after `after`, that are
     * not sealed under `exceptKeyId` (null: that are not sealed at all).
     */
    findValuesToSeal(
      column: SealedColumn,
      after: string,
      exceptKeyId: string | null,
      limit: number,
    ): Promise<{ id: string; value: string }[]> {
      return db.$queryRawUnsafe<{ id: string; value: string }[]>(
        `SELECT "${column.idColumn}" AS id, "${column.column}" AS value FROM "${column.table}"
         WHERE "${column.idColumn}" > $1 AND "${column.column}" IS NOT NULL AND "${column.column}" NOT LIKE $2
         ORDER BY "${column.idColumn}" LIMIT ${Number(limit)}`,
        after,
        exceptKeyId === null ? "v1:%" : `v1:${exceptKeyId}:%`,
      );
    },

    /** Replaces a value only if it is still `expected` (a concurrent write wins); answers whether it did. */
    async replaceValueIf(column: SealedColumn, id: string, expected: string, value: string): Promise<boolean> {
      const updated = await db.$executeRawUnsafe(
        `UPDATE "${column.table}" SET "${column.column}" = $1 WHERE "${column.idColumn}" = $2 AND "${column.column}" = $3`,
        value,
        id,
        expected,
      );
      return updated > 0;
    },
  };
}

export type SecretsRepository = ReturnType<typeof createSecretsRepository>;
