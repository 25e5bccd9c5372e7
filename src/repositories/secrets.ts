// Stored secrets: the token-signing keys, and every column that holds a
// sealed value, with the passes over them (counting by key id, reading a
// batch to re-seal, replacing a value only if unchanged). A new kind of
// secret (SSO client secrets, say) is one more entry in SEALED_COLUMNS.
import { type Executor, statementsOn } from "./executor.ts";
import type { Database } from "../db/database.ts";
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

/** A signing key as the token issuer opens it. */
export type StoredSigningKey = Pick<SigningKey, "kid" | "privateJwk" | "publicJwk">;

/**
 * Every statement here is hand-written and runs through `statement` when given (Database.statement):
 * the start-up's passes and the signing key then never load Prisma's query compiler.
 */
export function createSecretsRepository(db: Executor, statement?: Database["statement"]) {
  const run = statementsOn(db, statement);
  return {
    /** The newest token-signing key, if any. */
    async findNewestSigningKey(): Promise<StoredSigningKey | null> {
      const [row] = await run<{ kid: string; privateJwk: string; publicJwk: string }>(
        `SELECT kid, private_jwk AS "privateJwk", public_jwk::text AS "publicJwk" FROM signing_keys ORDER BY created_at DESC LIMIT 1`,
        [],
      );
      return row ? { ...row, publicJwk: JSON.parse(row.publicJwk) as Prisma.JsonValue } : null;
    },

    async createSigningKey(record: {
      kid: string;
      privateJwk: string;
      publicJwk: Prisma.InputJsonValue;
    }): Promise<void> {
      await run(`INSERT INTO signing_keys (kid, private_jwk, public_jwk) VALUES ($1, $2, $3::jsonb) RETURNING kid`, [
        record.kid,
        record.privateJwk,
        JSON.stringify(record.publicJwk),
      ]);
    },

    /** How many values of the column each key id sealed (CLEAR: not sealed). */
    async countByKeyId(column: SealedColumn): Promise<{ keyId: string; count: number }[]> {
      const rows = await run<{ key_id: string; n: number }>(
        `SELECT CASE WHEN "${column.column}" LIKE 'v1:%' THEN split_part("${column.column}", ':', 2) ELSE '${CLEAR}' END AS key_id, count(*)::int AS n
         FROM "${column.table}" WHERE "${column.column}" IS NOT NULL GROUP BY 1`,
        [],
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
      return run<{ id: string; value: string }>(
        `SELECT "${column.idColumn}" AS id, "${column.column}" AS value FROM "${column.table}"
         WHERE "${column.idColumn}" > $1 AND "${column.column}" IS NOT NULL AND "${column.column}" NOT LIKE $2
         ORDER BY "${column.idColumn}" LIMIT ${Number(limit)}`,
        [after, exceptKeyId === null ? "v1:%" : `v1:${exceptKeyId}:%`],
      );
    },

    /** Replaces a value only if it is still `expected` (a concurrent write wins); answers whether it did. */
    async replaceValueIf(column: SealedColumn, id: string, expected: string, value: string): Promise<boolean> {
      const updated = await run(
        `UPDATE "${column.table}" SET "${column.column}" = $1 WHERE "${column.idColumn}" = $2 AND "${column.column}" = $3
         RETURNING 1 AS updated`,
        [value, id, expected],
      );
      return updated.length > 0;
    },
  };
}

export type SecretsRepository = ReturnType<typeof createSecretsRepository>;
