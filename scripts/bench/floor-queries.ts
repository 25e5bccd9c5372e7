// What both floors of scripts/bench/reads.ts do with the database, given a query function: the
// credential's environment (the key's SHA-256 looked up, remembered 2 s as the service does),
// one equivalency by id rendered as the API shows it (the service's "equivalency_expanded_api_json"),
// and the list's page of ids joined back to its rows, rendered by "equivalency_api_json", with its
// count (remembered 10 s above 10,000 rows, as the service does): the service's own SQL, each text
// passed through as the service passes it.
import { hashApiKey } from "../../src/auth/api-keys.ts";

/** The service's own cache lifetime (src/auth/authenticator.ts). */
const KEY_CACHE_MS = 2_000;
const EXPANDED_BY_ID = `SELECT version, representation AS record FROM "equivalency_expanded_api_json"($1, $2::"Environment")`;
const KEY_BY_HASH = `SELECT environment FROM api_keys WHERE hash = $1 AND revoked_at IS NULL`;
const LIST_PAGE = `SELECT '[' || coalesce(string_agg("equivalency_api_json"(e)::text, ',' ORDER BY ids.n) FILTER (WHERE ids.n < $2), '') || ']' AS page
  FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n
        FROM (SELECT id, created_at FROM equivalencies WHERE environment = $1::"Environment" AND status = $4::"EquivalencyStatus"
              ORDER BY created_at, id LIMIT $2 OFFSET $3) AS page) AS ids
  JOIN equivalencies AS e USING (id)`;
const LIST_COUNT = `SELECT count(*)::int AS total FROM equivalencies WHERE environment = $1::"Environment" AND status = $2::"EquivalencyStatus"`;
/** src/repositories/totals.ts: totals above this are remembered for TOTAL_TTL_MS. */
const EXACT_TOTAL_LIMIT = 10_000;
const TOTAL_TTL_MS = 10_000;
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
    return `{"data":${String(row.page)},"pagination":${JSON.stringify({ total, limit, offset })}}`;
  }

  /** One equivalency as the API shows it (JSON text), or null. */
  async function equivalencyById(id: string, environment: string): Promise<string | null> {
    const [row] = await database.query(EXPANDED_BY_ID, [id, environment]);
    return row?.record ? `{"data":${String(row.record)}}` : null;
  }

  return { environmentOf, listPage, equivalencyById };
}
