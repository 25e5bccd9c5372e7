// The administrator's commands (src/cli/program.ts builds them): `npm run -s cli -- <command>` runs them in the
// server when one holds the embedded data directory, else here (scripts/cli.ts is the entry).
import fs from "node:fs";
import path from "node:path";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { loadConfig } from "../kernel/config.ts";
import { createLogger } from "../kernel/logger.ts";
import { openDatabase } from "../db/database.ts";
import { copyDatabase } from "../db/copy-database.ts";
import { openMigratedDatabase } from "../process/startup.ts";
import { applyMigrations, migrationStatus } from "../db/migrations.ts";
import { repositoriesOf } from "../repositories/index.ts";
import { createServices, type Services } from "../services/index.ts";
import { openKeyring } from "../process/secrets-keyring.ts";
import { countRecords, readInstitutionFile } from "../services/imports/institutions.ts";
import { ProblemError } from "../kernel/errors.ts";
import { EVENT_TYPES, type EventType } from "../kernel/events.ts";
import type { Database } from "../db/database.ts";
import { createProgress, type Output, createOutput } from "./output.ts";
import { addUsersCommands } from "./users.ts";
import { addSsoCommands } from "./sso.ts";
import type { CommandIo, CommandRunner, Terminal } from "../process/admin-channel.ts";
import { debugStack, describeFailure } from "../process/exit-messages.ts";
import { runAsOperator } from "./operator.ts";
import { addEquivalenciesCommands, type ImportInput } from "./equivalencies.ts";
import { addEvaluationCommands } from "./evaluate.ts";
import { addCredentialCommands } from "./credentials.ts";
import { CHANNELS, envOption, normaliseOptionNames } from "./options.ts";
import { addOrganizationCommands } from "./organizations.ts";
import type { Environment } from "../../generated/prisma/enums.ts";
import { addSecretsCommands, type KeyringOpener } from "./secrets.ts";

export type { KeyringOpener } from "./secrets.ts";

/** Standard input read to its end (`--file -` run in this process). */
async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A database URL without its password, to print. */
function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "the database";
  }
}

/** Opens the configured database, migrated. Tests pass their own. */
export type DatabaseOpener = () => Promise<Database>;

function feedPosition(value: string): bigint {
  if (!/^\d{1,19}$/.test(value))
    throw new InvalidArgumentError("a feed position is a whole number (the first column of a line)");
  return BigInt(value);
}

function positiveCount(value: string): number {
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new InvalidArgumentError("a count is a whole number from 1");
  return Number(value);
}

/** Ctrl-C stops a command run in this process; `release` restores Ctrl-C's usual effect. */
function stopOnInterrupt(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once("SIGINT", interrupt);
  return { signal: controller.signal, release: () => process.off("SIGINT", interrupt) };
}

const openConfiguredDatabase: DatabaseOpener = () => openMigratedDatabase(loadConfig(), createLogger("warn"));

const openUnmigratedDatabase: DatabaseOpener = () => {
  const config = loadConfig();
  return openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    sharedBuffersMb: config.embeddedSharedBuffersMb,
  });
};

const openConfiguredKeyring: KeyringOpener = () => openKeyring(loadConfig());

/**
 * A file argument as a path to read: relative to the directory the command was
 * typed in (over the server's channel too), and refused with the reason when it
 * cannot be read.
 */
export function readableFile(cwd: string, file: string): string {
  const resolved = path.resolve(cwd, file);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(resolved);
    if (stat.isFile()) fs.accessSync(resolved, fs.constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR")
      throw new Error(
        `Cannot read ${file}: there is no such file (looked in ${path.dirname(resolved)}). Check the path.`,
      );
    if (code === "EACCES" || code === "EPERM")
      throw new Error(`Cannot read ${file}: permission denied. Make it readable by this user (chmod u+r ${file}).`);
    throw error;
  }
  if (!stat.isFile()) throw new Error(`Cannot read ${file}: it is not a file. Give the path of the file to import.`);
  return resolved;
}

/** What a command run inside a server (its administrative channel) reaches of that server. */
export interface RunningServer {
  /** Drops a revoked credential from the server's cache, so the revocation holds at once. */
  forgetCredential(credentialId: string): void;
}

export function buildProgram(
  output: Output = createOutput(),
  openDb: DatabaseOpener = openConfiguredDatabase,
  openRaw: DatabaseOpener = openUnmigratedDatabase,
  openKeys: KeyringOpener = openConfiguredKeyring,
  cwd: string = process.cwd(),
  /** Stops a command that runs until stopped (over the server's channel); else Ctrl-C does. */
  signal?: AbortSignal,
  server: RunningServer | null = null,
  /** Where `equivalencies import` reads its file: the content forwarded with the command, or here. */
  importInput: Omit<ImportInput, "readablePath"> = { readStdin: readAllStdin },
): Command {
  async function withDatabase<T>(fn: (database: Database) => Promise<T>): Promise<T> {
    const database = await openDb();
    try {
      return await fn(database);
    } finally {
      await database.close();
    }
  }

  /**
   * The services over a freshly opened database, built as the server builds
   * them (no request, so no caller: the operator acts).
   */
  function withServices<T>(fn: (services: Services, database: Database) => Promise<T>): Promise<T> {
    return withDatabase((database) =>
      // Every change a command makes is the operator's, audited in its own transaction.
      runAsOperator(commandName, async () => {
        const services = createServices({
          repositories: repositoriesOf(database),
          config: loadConfig(),
          secrets: openKeys().box,
          forgetCredential: server?.forgetCredential,
          databaseKind: database.kind,
        });
        try {
          return await fn(services, database);
        } finally {
          // The demand an evaluation gathered is written before the database closes: nothing is lost.
          await services.transferEvaluations.closeDemand();
        }
      }),
    );
  }

  /** The command being run, as typed (`keys create`): the audit log's operationId is `cli:` and this. */
  let commandName = "";

  const program = new Command("cli")
    .description("Administer the course and equivalency repository: organizations, keys, imports, database.")
    .option("--json", "print machine-readable JSON")
    .showHelpAfterError()
    .hook("preAction", (command, action) => {
      output.setJson(Boolean(command.optsWithGlobals().json));
      commandName = commandPath(action);
    });

  addOrganizationCommands(program, output, withServices);
  addCredentialCommands(program, output, withServices);
  addSecretsCommands(program, output, withServices, openKeys, server !== null);
  addUsersCommands(program, output, withServices);
  addSsoCommands(program, output, withServices, importInput);
  const fileInput = { ...importInput, readablePath: (file: string) => readableFile(cwd, file) };
  addEquivalenciesCommands(program, output, withServices, fileInput);
  addEvaluationCommands(program, output, withServices, fileInput);

  program
    .command("institutions")
    .description("Institution reference data")
    .command("import")
    .description("Import institutions from an IPEDS directory CSV (HD file) or a JSON array; idempotent by IPEDS id")
    .argument("<file>", "CSV with UNITID, INSTNM, CITY, STABBR, SECTOR, F1SYSNAM[, CYACTIVE] columns, or JSON")
    .addOption(envOption())
    .addOption(
      new Option("--source <channel>", "onboarding channel recorded for imported institutions")
        .choices(CHANNELS)
        .default("direct"),
    )
    .action((given: string, opts) => {
      const file = readableFile(cwd, given);
      return withServices(async (services) => {
        const progress = createProgress(output, "rows", countRecords(file));
        const summary = await services.catalogImports.importInstitutions(
          readInstitutionFile(file, opts.source),
          opts.env,
          (s) => progress.update(s.read),
        );
        progress.stop();
        output.result(
          summary,
          `Read ${summary.read} rows: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.skipped} skipped.` +
            Object.entries(summary.skippedReasons)
              .map(([reason, n]) => `\n  skipped ${n}: ${reason}`)
              .join(""),
        );
        // Nothing imported is a failure to notice (a wrong file, a wrong column), not a success.
        if (summary.read === summary.skipped) {
          output.error(
            summary.read
              ? `No institution was imported: all ${summary.read} rows of ${given} were skipped (reasons above). Check that it is the IPEDS HD file or the JSON format of docs/cli.md.`
              : `No institution was imported: ${given} holds no rows.`,
          );
          output.setExitCode(1);
        }
      });
    });

  program
    .command("cip")
    .description("CIP 2020 reference data")
    .command("import")
    .description("Import the CIP 2020 list (CIP_Code,CIP_Title, or NCES's CIPCode/CIPTitle/Action file)")
    .argument("<file>", "CSV file")
    .action((given: string) => {
      const file = readableFile(cwd, given);
      return withServices(async (services) => {
        const summary = await services.catalogImports.importCip(file);
        output.result(
          summary,
          `Imported ${summary.imported} CIP codes (${summary.byDigits[2]} families, ${summary.byDigits[4]} series, ${summary.byDigits[6]} codes); ${summary.skipped} rows skipped.`,
        );
      });
    });

  program
    .command("seed")
    .description("Load the sandbox demo dataset (only into an empty sandbox)")
    .addOption(
      new Option("--env <environment>", "only sandbox can be seeded").choices(["sandbox"]).makeOptionMandatory(),
    )
    .action(() =>
      withServices(async ({ sandbox }) => {
        await sandbox.ensurePublicSandboxKey(loadConfig().publicSandboxKey);
        const summary = await sandbox.seedSandboxIfEmpty();
        output.result(
          summary ?? { seeded: false },
          summary
            ? `Seeded the sandbox: ${JSON.stringify(summary)}.`
            : "The sandbox already holds data; nothing was changed.",
        );
      }),
    );

  const events = program.command("events").description("The change feed");
  events
    .command("tail")
    .description("Print an environment's events as they are committed, in commit order, until stopped (Ctrl-C)")
    .addOption(envOption())
    .option("--from-start", "begin with the oldest event kept instead of the end of the feed")
    .option("--after <position>", "begin after this feed position (the first column of a line)", feedPosition)
    .addOption(new Option("--type <type...>", "only events of these types").choices(EVENT_TYPES))
    .option("--count <n>", "stop after printing this many events", positiveCount)
    .action((opts: { env: Environment; fromStart?: boolean; after?: bigint; type?: EventType[]; count?: number }) =>
      withServices(async (services) => {
        const stop = signal ? null : stopOnInterrupt();
        const after = opts.after ?? (opts.fromStart ? 0n : undefined);
        let printed = 0;
        try {
          const tail = services.events.tailEvents(opts.env, { after, types: opts.type }, signal ?? stop!.signal);
          for await (const { position, envelope } of tail) {
            const line = `${position}\t${envelope.created}\t${envelope.type}\t${envelope.id}\t${JSON.stringify(envelope.data)}`;
            output.line({ position: position.toString(), ...envelope }, line);
            if (opts.count !== undefined && ++printed >= opts.count) break;
          }
        } finally {
          stop?.release();
        }
      }),
    );

  const db = program.command("db").description("Database maintenance");
  db.command("migrate")
    .description("Apply pending migrations")
    .action(async () => {
      const database = await openRaw();
      try {
        const applied = await database.session((sql) => applyMigrations(sql));
        output.result({ applied }, applied.length ? `Applied ${applied.join(", ")}.` : "The database is up to date.");
      } finally {
        await database.close();
      }
    });
  db.command("copy")
    .description(
      "Copy every row of the embedded database into a new PostgreSQL database (migrated first), to move to PostgreSQL",
    )
    .requiredOption("--to <url>", "the new database's postgresql:// URL (it must hold no data yet)")
    .action(async ({ to }: { to: string }) => {
      // One snapshot of the data directory and nothing written meanwhile: a running server would write.
      if (server)
        throw new Error(
          "db copy needs the data directory to itself; nothing was copied: stop the server, run db copy, then start the server with DATABASE_URL",
        );
      if (!/^postgres(ql)?:\/\//.test(to)) throw new Error(`--to must be a postgresql:// URL; nothing was copied`);
      const source = await openDb();
      try {
        const target = await openDatabase({ databaseUrl: to, dataDir: "" });
        try {
          const copied = await copyDatabase(source, target);
          output.result(
            copied,
            [
              ...copied.tables.filter((table) => table.rows > 0).map((table) => `${table.table}: ${table.rows} rows`),
              `Copied ${copied.rows} rows into ${describeTarget(to)}. Start the server with DATABASE_URL set to it (and the same SVC_DATA_DIR or SVC_SECRETS_KEY, whose key opens the stored secrets).`,
            ].join("\n"),
          );
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    });
  db.command("status")
    .description("Show applied and pending migrations")
    .action(async () => {
      const database = await openRaw();
      try {
        const status = await database.session((sql) => migrationStatus(sql));
        output.result(
          { database: database.kind, ...status },
          [
            `Database: ${database.kind}`,
            ...status.applied.map((n) => `applied  ${n}`),
            ...status.pending.map((n) => `pending  ${n}`),
          ].join("\n"),
        );
        if (status.pending.length || status.modified.length) output.setExitCode(1);
      } finally {
        await database.close();
      }
    });
  return program;
}

/** `keys create` for the `create` command of `keys` (the program's own name left out). */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}

export interface CliIo extends CommandIo {
  /** Standard error is a terminal of the person typing: progress bars may be drawn. */
  interactive?: boolean;
  /** The typing terminal's width and colours, when the command runs elsewhere (the server's channel). */
  terminal?: Terminal;
}

export interface CliOptions {
  openDb?: DatabaseOpener;
  openRaw?: DatabaseOpener;
  openKeys?: KeyringOpener;
  cwd?: string;
  /** The server the command runs inside (its administrative channel), if any. */
  server?: RunningServer;
  /** The content of the file a forwarded command names (`equivalencies import --file`), read by the CLI. */
  forwardedInput?: string;
  /** Standard input, for `--file -` (tests pass their own). */
  readStdin?: () => Promise<string>;
}

/**
 * Runs one command line (the arguments after `cli`) to its end and returns its
 * exit code. Everything it prints goes through io: the CLI passes its own
 * standard output and error, the server's administrative channel passes the
 * socket. A command prints through `output` and fails by throwing (or by
 * output.setExitCode); it never calls process.exit.
 */
export async function runCli(argv: string[], io: CliIo, options: CliOptions = {}): Promise<number> {
  const output = createOutput(io.stdout, io.interactive ?? false, io.stderr);
  const program = buildProgram(
    output,
    options.openDb ?? openConfiguredDatabase,
    options.openRaw ?? openUnmigratedDatabase,
    options.openKeys ?? openConfiguredKeyring,
    options.cwd ?? process.cwd(),
    io.signal,
    options.server ?? null,
    { forwarded: options.forwardedInput, readStdin: options.readStdin ?? readAllStdin },
  );
  const terminal = io.terminal;
  const configure = (command: Command) => {
    command.exitOverride().configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      ...(terminal && {
        getOutHelpWidth: () => terminal.outColumns as number,
        getErrHelpWidth: () => terminal.errColumns as number,
        getOutHasColors: () => terminal.outColors,
        getErrHasColors: () => terminal.errColors,
      }),
    });
    command.commands.forEach(configure);
  };
  configure(program);
  const exitCodeBefore = process.exitCode;
  let code: number;
  try {
    await program.parseAsync(normaliseOptionNames(argv), { from: "user" });
    code = output.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) code = error.exitCode;
    else {
      io.stderr(`error: ${cliMessage(error)}\n`);
      const stack = debugStack(error);
      if (stack) io.stderr(`${stack}\n`);
      code = 1;
    }
  }
  // A command that set the process's exit code (rather than output.setExitCode) must not leave it on the server.
  const leaked = process.exitCode;
  if (leaked !== exitCodeBefore) {
    process.exitCode = exitCodeBefore;
    if (!code) code = Number(leaked) || 0;
  }
  return code;
}

/**
 * What the server's administrative channel runs: the same program, on the
 * server's own database (left open after each command), with the file
 * arguments read from the directory the command was typed in.
 */
export function serverCommandRunner(
  database: Database,
  openKeys: KeyringOpener = openConfiguredKeyring,
  server: RunningServer = { forgetCredential: () => {} },
): CommandRunner {
  const shared: DatabaseOpener = async () => ({ ...database, close: async () => {} });
  return (request, io) =>
    runCli(
      request.argv,
      { ...io, terminal: request.terminal },
      {
        openDb: shared,
        openRaw: shared,
        openKeys,
        cwd: request.cwd,
        server,
        forwardedInput: request.input,
        // The server's standard input is not the operator's: their file travels with the command.
        readStdin: async () => {
          throw new Error("standard input does not reach the server: give --file a path, or - with the CLI");
        },
      },
    );
}

function cliMessage(error: unknown): string {
  if (error instanceof ProblemError)
    return `${error.message}${"errors" in error.extensions ? ` ${JSON.stringify(error.extensions.errors)}` : ""}`;
  return describeFailure(error);
}
