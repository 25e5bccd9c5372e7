// What a person reads when the server or the CLI cannot go on: one line saying
// what failed, why, and what to do, for the failures a person causes (a busy
// port, a database that does not exist, a directory this user cannot write).
// Anything else keeps its own message; the stack is printed only with
// SVC_LOG_LEVEL=debug.

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
}

/** Host, port, user and database name of a postgresql:// URL, for advice that can be pasted. */
function describeUrl(url: string | undefined): { host: string; port: string; user: string; database: string } | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return {
      host: parsed.hostname || "localhost",
      port: parsed.port || "5432",
      user: decodeURIComponent(parsed.username) || "postgres",
      database: decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "postgres",
    };
  } catch {
    return null;
  }
}

export function describeFailure(error: unknown, env: Record<string, string | undefined> = process.env): string {
  if (!(error instanceof Error)) return String(error);
  const e = error as SystemError;
  const url = describeUrl(env.DATABASE_URL);
  switch (e.code) {
    case "3D000": {
      const name = url?.database ?? "named in DATABASE_URL";
      const create = url ? ` (createdb -h ${url.host} -p ${url.port} -U ${url.user} ${url.database})` : "";
      return `The PostgreSQL database ${name} does not exist (${e.message}). Create it first${create}, or correct DATABASE_URL.`;
    }
    case "28P01":
    case "28000":
      return `The PostgreSQL server refused the login of DATABASE_URL (${e.message}). Correct the user or password in DATABASE_URL.`;
    case "ECONNREFUSED":
    case "EHOSTUNREACH":
    case "ENOTFOUND":
    case "ETIMEDOUT":
      if (e.syscall === "connect" || e.syscall === "getaddrinfo")
        return `Cannot reach the PostgreSQL server of DATABASE_URL${url ? ` at ${url.host}:${url.port}` : ""} (${e.code}). Start it, or correct DATABASE_URL.`;
      break;
    case "EACCES":
    case "EPERM":
    case "EROFS":
      if (e.path)
        return `Permission denied on ${e.path} (${e.syscall ?? e.code}). Give this user access to it, or point SVC_DATA_DIR at a directory it can write.`;
      break;
  }
  return e.message || String(error);
}

/** The stack, printed after the line only when SVC_LOG_LEVEL=debug. */
export function debugStack(error: unknown, env: Record<string, string | undefined> = process.env): string | null {
  return env.SVC_LOG_LEVEL?.toLowerCase() === "debug" && error instanceof Error && error.stack ? error.stack : null;
}
