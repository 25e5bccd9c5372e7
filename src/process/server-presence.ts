// Whether a server is running on a PostgreSQL database. Each server process holds a shared advisory
// lock on one session for its lifetime (a crash ends the session and the lock with it); a command
// that must not run beside a server (`secrets rotate` with the key file, which a running server
// would not see) takes the same lock exclusively, and is refused while any server holds it. On the
// embedded database the data directory's lock answers the same question.
import type { Database } from "../db/database.ts";

/** The advisory lock's key (beside the migration lock's, 72_201_100). */
const SERVER_PRESENCE_LOCK = 72_201_200;

/** Holds the shared lock until `release` is called; resolves once it is held. */
export async function holdServerPresence(database: Pick<Database, "session">): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held!: () => void;
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const session = database.session(async (sql) => {
    await sql.query("SELECT pg_advisory_lock_shared($1)", [SERVER_PRESENCE_LOCK]);
    held();
    await released;
    // The session's connection goes back to the pool: it must not keep the lock.
    await sql.query("SELECT pg_advisory_unlock_shared($1)", [SERVER_PRESENCE_LOCK]);
  });
  await Promise.race([holding, session]);
  return {
    async release() {
      release();
      await session;
    },
  };
}

/** Runs `work` only while no server holds the lock (it is held exclusively meanwhile); null when one does. */
export async function whileNoServerRuns<T>(
  database: Pick<Database, "session">,
  work: () => Promise<T>,
): Promise<T | null> {
  return database.session(async (sql) => {
    const [row] = await sql.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
      SERVER_PRESENCE_LOCK,
    ]);
    if (!row.locked) return null;
    try {
      return await work();
    } finally {
      await sql.query("SELECT pg_advisory_unlock($1)", [SERVER_PRESENCE_LOCK]);
    }
  });
}
