// What both floors of scripts/bench/reads.ts do with the database, given a query function: the
// credential's environment (the key's SHA-256 looked up, remembered 2 s as the service does),
// one equivalency by id (the service's "equivalency_expanded_json"), and the list's page of ids
// joined back to its rows with its count (remembered 10 s above 10,000 rows, as the service does),
// answered under the API's field names.
import { hashApiKey } from "../../src/auth/api-keys.ts";

/** The service's own cache lifetime (src/auth/authenticator.ts). */
const KEY_CACHE_MS = 2_000;
const EXPANDED_BY_ID = `SELECT "equivalency_expanded_json"($1, $2::"Environment") AS record`;
const KEY_BY_HASH = `SELECT environment FROM api_keys WHERE hash = $1 AND revoked_at IS NULL`;
const LIST_PAGE = `SELECT coalesce(json_agg(row_to_json(e) ORDER BY e.created_at, e.id), '[]')::text AS page
  FROM (SELECT id FROM equivalencies WHERE environment = $1::"Environment" AND status = $4::"EquivalencyStatus"
        ORDER BY created_at, id LIMIT $2 OFFSET $3) AS ids
  JOIN equivalencies AS e USING (id)`;
const LIST_COUNT = `SELECT count(*)::int AS total FROM equivalencies WHERE environment = $1::"Environment" AND status = $2::"EquivalencyStatus"`;
/** src/repositories/totals.ts: totals above this are remembered for TOTAL_TTL_MS. */
const EXACT_TOTAL_LIMIT = 10_000;
const TOTAL_TTL_MS = 10_000;
/** Columns the API does not show. */
const INTERNAL_COLUMNS = new Set(["environment", "organization_id", "target_key"]);

/** A row of row_to_json under the API's field names: camelCase, timestamps (UTC, written without a zone) as ISO 8601. */
function apiFields(row: Record<string, unknown>): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (INTERNAL_COLUMNS.has(column)) continue;
    const field = column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    view[field] = column.endsWith("_at") && typeof value === "string" ? new Date(`${value}Z`).toISOString() : value;
  }
  return view;
}

export type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

export function floorQueries(database: { query: Query }) {
  const keys = new Map<string, { environment: string; expiresAt: number }>();

  async function environmentOf(authorization: string | undefined): Promise<string | null> {
    const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
    if (!token) return null;
    const hash = hashApiKey(token);
    const cached = keys.get(hash);
    if (cached && cached.expiresAt > Date.now()) return cached.environment;
    const [row] = await database.query(KEY_BY_HASH, [hash]);
    if (!row) return null;
    keys.set(hash, { environment: String(row.environment), expiresAt: Date.now() + KEY_CACHE_MS });
    return String(row.environment);
  }

  const totals = new Map<string, { total: number; expiresAt: number }>();
  async function totalOf(environment: string, status: string): Promise<number> {
    const key = `${environment} ${status}`;
    const remembered = totals.get(key);
    if (remembered && remembered.expiresAt > Date.now()) return remembered.total;
    const [row] = await database.query(LIST_COUNT, [environment, status]);
    const total = Number(row.total);
    if (total > EXACT_TOTAL_LIMIT) totals.set(key, { total, expiresAt: Date.now() + TOTAL_TTL_MS });
    return total;
  }

  async function listPage(environment: string, url: URL): Promise<string> {
    const status = url.searchParams.get("status") ?? "accepted";
    const limit = Number(url.searchParams.get("limit") ?? 25);
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const [[row], total] = await Promise.all([
      database.query(LIST_PAGE, [environment, limit + 1, offset, status]),
      totalOf(environment, status),
    ]);
    const rows = JSON.parse(String(row.page)) as Record<string, unknown>[];
    return JSON.stringify({ data: rows.slice(0, limit).map(apiFields), pagination: { total, limit, offset } });
  }

  /** One equivalency as the API shows it (JSON text), or null. */
  async function equivalencyById(id: string, environment: string): Promise<string | null> {
    const [row] = await database.query(EXPANDED_BY_ID, [id, environment]);
    return row?.record ? String(row.record) : null;
  }

  return { environmentOf, listPage, equivalencyById };
}
