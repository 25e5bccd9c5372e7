#!/usr/bin/env node
// Offline stand-in for Prisma's native `schema-engine` binary.
//
// Why this file exists: `prisma migrate *`, `db *`, `validate`, `format` and
// `generate` insist on a native schema-engine binary that the CLI downloads
// from Prisma's servers, which are unreachable from our build machines and
// air-gapped servers. Prisma publishes the same engine compiled to WebAssembly
// (@prisma/schema-engine-wasm, pinned to the CLI's engine hash), driven through
// JS driver adapters instead of native database drivers. This executable
// speaks the native binary's protocol and forwards every call to that engine:
//
//   schema-engine --version
//   schema-engine --datasource '{"url":…}' cli can-connect-to-database|create-database|drop-database
//   schema-engine --datasource '{"url":…}' [--datamodels PATH]…   (JSON-RPC 2.0, one message per line
//                                                                   on stdin/stdout; logs on stderr)
//
// prisma.config.ts points PRISMA_SCHEMA_ENGINE_BINARY here. Supported URLs:
//   postgresql://… / postgres://…   a PostgreSQL server (through @prisma/adapter-pg)
//   pglite:PATH                     a PGlite data directory (through pglite-prisma-adapter);
//                                   a relative PATH is resolved against the working
//                                   directory (the CLI runs us from the project root).
//
// The wasm engine behind JS adapters has a few quirks, each worked around below
// and marked "Quirk": P1014 on a fresh database, the internal "char" type,
// adapter-pg's shadow database, and evaluateDataLoss/createMigration needing a
// prior devDiagnostic. Both adapters' executeScript is also replaced (adapter-pg
// splits scripts on ";", which breaks $$-quoted function bodies; the PGlite
// adapter does not await the script).
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");
const { randomUUID } = require("node:crypto");

// The engine hash of prisma 7.10.0; the wasm engine must be built from the same
// commit (package version 7.10.0-4.<hash>) or the CLI and engine disagree.
const ENGINE_HASH = "0edf323efd1d98336f3f0a68684b56f689b900d3";

// PostgreSQL type OIDs. Catalog queries return the internal one-byte `"char"`
// type, which adapter-pg rejects as an unsupported column type.
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

// ---------------------------------------------------------------------------
// Command line

function parseArgs(argv) {
  const args = { datasource: undefined, datamodels: [], cliCommand: undefined, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--version" || arg === "-V") args.version = true;
    else if (arg === "--datasource") args.datasource = JSON.parse(argv[++i]);
    else if (arg === "--datamodels") args.datamodels.push(argv[++i]);
    else if (arg === "cli") args.cliCommand = argv[++i];
    else if (arg === "--enabled-preview-features" || arg === "--extension-types") i++; // accepted, unused
    else throw new Error(`Unknown argument: ${arg}`);
  }
  return args;
}

// ---------------------------------------------------------------------------
// Datasource URLs

/** @returns {{kind: "postgres", url: string} | {kind: "pglite", dir: string}} */
function resolveDatasource(url) {
  if (!url) throw new UserError("P1012", "No datasource URL: set DATABASE_URL or see prisma.config.ts.");
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: "postgres", url };
  if (url.startsWith("pglite:")) return { kind: "pglite", dir: path.resolve(url.slice("pglite:".length)) };
  throw new UserError("P1013", `Unsupported datasource URL "${url.split(":")[0]}:…"; expected postgresql:// or pglite:PATH.`);
}

/** An error the CLI shows to the user with a Prisma error code. */
class UserError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// ---------------------------------------------------------------------------
// "char" columns presented as text (Quirk: adapter-pg rejects OID 18;
// pglite-prisma-adapter maps it itself)

function presentCharAsText(result) {
  for (const one of Array.isArray(result) ? result : [result]) {
    for (const field of one?.fields ?? []) {
      if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    }
  }
  return result;
}

/** A pg Client whose results never report the "char" type. */
function charAsTextPgClient(pg) {
  return class CharAsTextClient extends pg.Client {
    query(config, values, callback) {
      if (typeof values === "function") [values, callback] = [undefined, values];
      if (typeof callback === "function") {
        return super.query(config, values, (err, res) => callback(err, err ? res : presentCharAsText(res)));
      }
      const result = super.query(config, values);
      return typeof result?.then === "function" ? result.then(presentCharAsText) : result;
    }
  };
}

// ---------------------------------------------------------------------------
// PostgreSQL

let CharAsTextClient;

function pgConfig(url) {
  CharAsTextClient ??= charAsTextPgClient(require("pg"));
  return { connectionString: url, Client: CharAsTextClient };
}

/** Runs `fn` with a single short-lived connection to `url`. */
async function withPgClient(url, fn) {
  const pg = require("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function databaseUrl(url, database) {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

function databaseName(url) {
  return decodeURIComponent(new URL(url).pathname.slice(1)) || "postgres";
}

const quoteIdent = (name) => `"${name.replaceAll('"', '""')}"`;

/**
 * adapter-pg's executeScript splits scripts on ";", which breaks function
 * bodies ($$ … ; … $$) such as our triggers. The simple query protocol runs a
 * multi-statement script as sent, like the native engine does.
 */
function runScriptsWhole(adapter) {
  adapter.executeScript = async (script) => {
    try {
      await adapter.underlyingDriver().query(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
  return adapter;
}

/**
 * Quirk: adapter-pg's own shadow database reuses the main database (its
 * connection string wins over the database name) and cannot drop itself
 * (the drop runs while its pool is still open). We create a uniquely named
 * database, connect to it, and drop it when the engine disposes of it.
 */
async function connectPgShadowDb(url, shadows) {
  const { PrismaPg } = require("@prisma/adapter-pg");
  const name = `prisma_migrate_shadow_db_${randomUUID()}`;
  const drop = () => withPgClient(url, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
  await withPgClient(url, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
  shadows.add(drop);
  const adapter = runScriptsWhole(await new PrismaPg(pgConfig(databaseUrl(url, name))).connect());
  const dispose = adapter.dispose.bind(adapter);
  adapter.dispose = async () => {
    await dispose();
    shadows.delete(drop);
    await drop();
  };
  return adapter;
}

function postgresAdapterFactory(url) {
  const { PrismaPg } = require("@prisma/adapter-pg");
  const main = new PrismaPg(pgConfig(url));
  const shadows = new Set(); // drop functions of shadow databases not yet disposed
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => runScriptsWhole(await main.connect()),
    connectToShadowDb: () => connectPgShadowDb(url, shadows),
    // Drops shadow databases the engine left behind (e.g. after an error).
    close: async () => Promise.all([...shadows].map((drop) => drop().catch(() => {}))),
  };
}

// ---------------------------------------------------------------------------
// PGlite

async function openPglite(dataDir) {
  const { PGlite } = require("@electric-sql/pglite");
  if (dataDir) fs.mkdirSync(path.dirname(dataDir), { recursive: true }); // PGlite creates only the last level
  const db = new PGlite(dataDir); // undefined dataDir = in memory
  await db.waitReady;
  return db;
}

/**
 * pglite-prisma-adapter's executeScript does not await PGlite's exec(): the
 * script may still be running when the engine moves on, and its errors are
 * lost as unhandled rejections.
 */
function awaitScripts(adapter, db) {
  adapter.executeScript = async (script) => {
    try {
      await db.exec(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
  return adapter;
}

async function connectPglite(db) {
  const { PrismaPGlite } = require("pglite-prisma-adapter");
  return awaitScripts(await new PrismaPGlite(db).connect(), db);
}

function pgliteAdapterFactory(dir) {
  let main; // a promise of the PGlite instance, opened on the first connect
  const shadows = new Set();
  return {
    provider: "postgres",
    adapterName: "pglite-prisma-adapter",
    connect: async () => connectPglite(await (main ??= openPglite(dir))),
    // An in-memory instance is a perfect throwaway shadow database.
    connectToShadowDb: async () => {
      const db = await openPglite(undefined);
      shadows.add(db);
      const adapter = await connectPglite(db);
      adapter.dispose = async () => {
        shadows.delete(db);
        await db.close();
      };
      return adapter;
    },
    close: async () => {
      await Promise.all([...shadows].map((db) => db.close().catch(() => {})));
      if (main) await (await main).close();
    },
  };
}

function adapterFactory(datasource) {
  return datasource.kind === "pglite" ? pgliteAdapterFactory(datasource.dir) : postgresAdapterFactory(datasource.url);
}

// ---------------------------------------------------------------------------
// The WebAssembly engine

/**
 * The wasm engine reports the message of a Rust panic through this global
 * before it traps; without it, a panic crashes the process with a TypeError.
 */
const panics = { lastMessage: undefined };
globalThis.PRISMA_WASM_PANIC_REGISTRY = {
  set_message(message) {
    panics.lastMessage = message;
  },
};

async function loadWasmEngine() {
  const dir = path.dirname(require.resolve("@prisma/schema-engine-wasm"));
  const { pathToFileURL } = require("node:url");
  const bg = await import(pathToFileURL(path.join(dir, "schema_engine_bg.js")).href);
  const bytes = fs.readFileSync(path.join(dir, "schema_engine_bg.wasm"));
  const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  if (bg.version() !== ENGINE_HASH) {
    throw new Error(`@prisma/schema-engine-wasm is ${bg.version()}, the Prisma CLI needs ${ENGINE_HASH}: pin both to the same version.`);
  }
  return bg;
}

/** The engine's log lines are JSON already; stderr is where the CLI reads them. */
function forwardLog(line) {
  process.stderr.write(`${line}\n`);
}

/**
 * Errors the adapters throw that are not driver errors reach us only as
 * "External error id#N"; the JS error itself waits in the bound factory's
 * registry. Put its message back so the user sees what went wrong.
 */
function explainExternalErrors(error, boundFactory) {
  const message = String(error?.message ?? error);
  const explained = message.replace(/External error id#(\d+)/g, (text, id) => {
    const cause = boundFactory?.errorRegistry.consumeError(Number(id))?.error;
    return cause ? `${text}: ${cause.message ?? cause}` : text;
  });
  if (explained !== message) error.message = explained;
  return error;
}

/** Diff targets that are plain files: comparing them needs no real database. */
const FILE_TARGETS = new Set(["empty", "schemaDatamodel"]);
const IN_MEMORY = { kind: "pglite", dir: undefined };

function sessionDatasource(args, method, params) {
  if (method === "diff" && FILE_TARGETS.has(params.from.tag) && FILE_TARGETS.has(params.to.tag)) return IN_MEMORY;
  return resolveDatasource(args.datasource?.url); // never a silent stand-in for the real database
}

/**
 * One engine per process, as with the native binary. It is created on the
 * first request because the wasm engine connects as soon as it exists: a diff
 * between files then runs against a throwaway in-memory PGlite instead of
 * requiring a server (or initialising the configured PGlite directory).
 */
class EngineSession {
  constructor(wasm, args) {
    this.wasm = wasm;
    this.args = args;
    this.engine = undefined;
    this.factory = undefined;
    this.boundFactory = undefined; // holds the JS errors behind "External error id#N"
    this.diagnosed = false; // see ensureDiagnosed
  }

  async engineFor(method, params) {
    if (this.engine) return this.engine;
    const { bindMigrationAwareSqlAdapterFactory } = require("@prisma/driver-adapter-utils");
    this.factory = adapterFactory(sessionDatasource(this.args, method, params));
    this.boundFactory = bindMigrationAwareSqlAdapterFactory(this.factory);
    // Without --datamodels (e.g. migrate diff) the engine wants undefined, not [].
    const files = this.args.datamodels.map((file) => [file, fs.readFileSync(file, "utf8")]);
    const datamodels = files.length > 0 ? files : undefined;
    this.engine = await this.wasm.SchemaEngine.new({ datamodels }, forwardLog, this.boundFactory);
    return this.engine;
  }

  async call(method, params, cli) {
    try {
      return await this.dispatch(method, params, cli);
    } catch (error) {
      throw explainExternalErrors(error, this.boundFactory);
    }
  }

  async dispatch(method, params, cli) {
    if (method === "createDatabase") return { databaseName: await createDatabase(this.urlOf(params.datasource)) };
    const engine = await this.engineFor(method, params);
    switch (method) {
      case "getDatabaseVersion":
        return engine.version(params);
      case "diff":
        return this.diff(engine, params, cli);
      case "devDiagnostic":
        this.diagnosed = true;
        return this.withMigrationsTable(engine, params, () => engine.devDiagnostic(params));
      case "evaluateDataLoss":
      case "createMigration":
        await this.ensureDiagnosed(engine, params);
        return engine[method](params);
      case "applyMigrations":
        this.diagnosed = false;
        return this.withMigrationsTable(engine, params, () => engine.applyMigrations(params));
      case "diagnoseMigrationHistory":
      case "markMigrationApplied":
        return this.withMigrationsTable(engine, params, () => engine[method](params));
      default:
        if (typeof engine[method] !== "function") throw new Error(`Unknown method ${method}`);
        return engine[method](params);
    }
  }

  /** The native binary sends diffs back as a `print` request, not in the result. */
  async diff(engine, params, cli) {
    const { exitCode, stdout } = await engine.diff(params);
    if (stdout) await cli.print(stdout);
    return { exitCode, stdout: null };
  }

  /**
   * Quirk: evaluateDataLoss/createMigration only find the shadow database
   * after a devDiagnostic, and an applyMigrations in between (migrate dev on
   * a database that is behind) loses it again.
   */
  async ensureDiagnosed(engine, params) {
    if (this.diagnosed) return;
    await engine.devDiagnostic({ migrationsList: params.migrationsList, filters: params.filters });
    this.diagnosed = true;
  }

  /**
   * Quirk: on a fresh database without `_prisma_migrations` some calls fail
   * with P1014; applying an empty migration list creates the table first.
   */
  async withMigrationsTable(engine, params, fn) {
    try {
      return await fn();
    } catch (error) {
      if (!isMissingMigrationsTable(error) || !params?.migrationsList) throw error;
      const migrationsList = { ...params.migrationsList, migrationDirectories: [] };
      await engine.applyMigrations({ migrationsList, filters: params.filters });
      return fn();
    }
  }

  urlOf(datasource) {
    return datasource?.tag === "ConnectionString" ? datasource.url : this.args.datasource?.url;
  }

  async close() {
    await this.factory?.close();
  }
}

function isMissingMigrationsTable(error) {
  const message = String(error?.message);
  return /P1014/.test(message) || (message.includes("_prisma_migrations") && message.includes("does not exist"));
}

// ---------------------------------------------------------------------------
// JSON-RPC over stdin/stdout

/** The shape the CLI expects for failures (it shows data.message and data.error_code). */
function rpcError(error) {
  const isPanic = error instanceof WebAssembly.RuntimeError;
  const message = String(error?.message ?? error);
  return {
    code: 4466,
    message: "An error happened. Check the data field for details.",
    data: { is_panic: isPanic, message, meta: {}, ...(error?.code ? { error_code: error.code } : {}) },
  };
}

/** Talks to the CLI: answers its requests, and sends it `print` requests. */
class CliConnection {
  constructor(input, output) {
    this.output = output;
    this.nextId = 1;
    this.pendingPrints = new Map();
    this.lines = readline.createInterface({ input, crlfDelay: Infinity });
  }

  send(message) {
    this.output.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  }

  print(content) {
    const id = `print-${this.nextId++}`;
    return new Promise((resolve) => {
      this.pendingPrints.set(id, resolve);
      this.send({ id, method: "print", params: { content } });
    });
  }

  /** Requests are handled one at a time, in order, like the native engine does. */
  serve(session) {
    let queue = Promise.resolve();
    this.lines.on("line", (line) => {
      if (!line.trim()) return;
      const message = JSON.parse(line);
      if (message.method !== undefined) queue = queue.then(() => this.answer(session, message));
      else this.acknowledgePrint(message.id);
    });
    return new Promise((resolve) => this.lines.on("close", () => resolve(queue)));
  }

  acknowledgePrint(id) {
    this.pendingPrints.get(id)?.();
    this.pendingPrints.delete(id);
  }

  async answer(session, { id, method, params }) {
    try {
      const result = await session.call(method, params ?? {}, this);
      this.send({ id, result: result ?? {} });
    } catch (error) {
      this.send({ id, error: rpcError(error) });
    }
  }
}

// ---------------------------------------------------------------------------
// `cli` sub-commands: database lifecycle, outside the engine

/** Maps a connection failure to the Prisma error code the CLI acts on (P1003 = create it). */
function connectionError(error, url) {
  const u = new URL(url);
  const at = `${u.hostname}:${u.port || 5432}`;
  if (error.code === "3D000") return new UserError("P1003", `Database \`${databaseName(url)}\` does not exist on the database server at \`${at}\`.`);
  if (error.code === "28P01" || error.code === "28000") return new UserError("P1000", `Authentication failed against database server at \`${at}\`: ${error.message}`);
  if (error.code === "ECONNREFUSED" || error.code === "ENOTFOUND" || error.code === "ETIMEDOUT") return new UserError("P1001", `Can't reach database server at \`${at}\``);
  return error;
}

async function canConnect(url) {
  const datasource = resolveDatasource(url);
  if (datasource.kind === "pglite") return; // PGlite initialises its directory on first use
  await withPgClient(url, (c) => c.query("SELECT 1")).catch((error) => {
    throw connectionError(error, url);
  });
}

/** Runs `sql` on the server's maintenance database, where the target may not exist yet. */
function onMaintenanceDb(url, sql) {
  return withPgClient(databaseUrl(url, "postgres"), (c) => c.query(sql)).catch((error) => {
    throw connectionError(error, url);
  });
}

async function createDatabase(url) {
  const datasource = resolveDatasource(url);
  if (datasource.kind === "pglite") {
    await (await openPglite(datasource.dir)).close();
    return path.basename(datasource.dir);
  }
  await onMaintenanceDb(url, `CREATE DATABASE ${quoteIdent(databaseName(url))}`);
  return databaseName(url);
}

async function dropDatabase(url) {
  const datasource = resolveDatasource(url);
  if (datasource.kind === "pglite") fs.rmSync(datasource.dir, { recursive: true, force: true });
  else await onMaintenanceDb(url, `DROP DATABASE ${quoteIdent(databaseName(url))}`);
}

const CLI_COMMANDS = {
  "can-connect-to-database": canConnect,
  "create-database": async (url) => {
    console.log(`Database '${await createDatabase(url)}' was successfully created.`);
  },
  "drop-database": async (url) => {
    await dropDatabase(url);
    console.log("The database was successfully dropped.");
  },
};

/**
 * The CLI parses stderr as JSON log lines, skipping the first, and looks for an
 * ERROR from target schema_engine::logger carrying error_code and message.
 */
function reportCliError(error) {
  const log = (level, fields) => process.stderr.write(`${JSON.stringify({ level, fields, target: "schema_engine::logger" })}\n`);
  log("INFO", { message: "Starting schema engine CLI" });
  log("ERROR", { message: String(error.message), ...(error.code ? { error_code: error.code } : {}) });
}

async function runCliCommand(args) {
  const command = CLI_COMMANDS[args.cliCommand];
  if (!command) throw new Error(`Unknown cli sub-command: ${args.cliCommand}`);
  try {
    await command(args.datasource?.url);
    return 0;
  } catch (error) {
    reportCliError(error);
    return 1;
  }
}

// ---------------------------------------------------------------------------
// Entry point

async function serveRpc(args) {
  const session = new EngineSession(await loadWasmEngine(), args);
  const cli = new CliConnection(process.stdin, process.stdout);
  // The CLI ends a session by closing our stdin and, on Unix, sending SIGTERM
  // at once: both must release PGlite and drop leftover shadow databases.
  let closing;
  const shutdown = () => (closing ??= session.close().catch(forwardLog).then(() => process.exit(0)));
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  await cli.serve(session);
  await shutdown();
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.version) {
    console.log(`schema-engine-cli ${(await loadWasmEngine()).version()}`);
    return 0;
  }
  if (args.cliCommand) return runCliCommand(args);
  await serveRpc(args);
  return 0;
}

/** Logs a fatal error the way the CLI reads it; 101 is what a panicking native engine exits with. */
function die(error) {
  const message = panics.lastMessage ?? String(error?.stack ?? error);
  process.stderr.write(`${JSON.stringify({ level: "ERROR", fields: { message }, target: "schema_engine::logger" })}\n`);
  process.exit(panics.lastMessage ? 101 : 1);
}

process.on("uncaughtException", die);
main().then((code) => process.exit(code), die);
