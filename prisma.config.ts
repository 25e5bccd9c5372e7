import { defineConfig } from "prisma/config";
import path from "node:path";

// Prisma's CLI insists on a native schema engine that it would download; this
// project ships an offline one built on @prisma/schema-engine-wasm instead.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.resolve("scripts/prisma-schema-engine.cjs");

// DATABASE_URL (postgresql://…) selects a PostgreSQL server. Without it the CLI
// works on the embedded database, a PGlite data directory at
// $SVC_DATA_DIR/pglite (SVC_DATA_DIR defaults to ./data), written as
// `pglite:<path>`: a URL scheme of our own that only
// scripts/prisma-schema-engine.cjs understands (Prisma itself has none for PGlite).
const pgliteDir = path.resolve(process.env.SVC_DATA_DIR ?? "./data", "pglite");

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: {
    url: process.env.DATABASE_URL || `pglite:${pgliteDir}`,
  },
});
