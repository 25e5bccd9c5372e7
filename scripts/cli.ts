// The administrator's command-line tool: `npm run -s cli -- <command>`. The commands
// live in src/cli/program.ts, which the server also runs for a CLI that reaches it.
import fs from "node:fs";
import { Command } from "commander";
import { fileToForward } from "../src/cli/equivalencies.ts";
import { loadConfig } from "../src/kernel/config.ts";
import { adminSocketPath, forwardCommand, type Terminal } from "../src/process/admin-channel.ts";
import { describeFailure } from "../src/process/exit-messages.ts";
import { type CliIo, runCli } from "../src/cli/program.ts";

/** The terminal this process prints to, as commander would see it. */
function ownTerminal(): Terminal {
  const defaults = new Command().configureOutput();
  return {
    outColumns: defaults.getOutHelpWidth?.(),
    errColumns: defaults.getErrHelpWidth?.(),
    outColors: Boolean(defaults.getOutHasColors?.()),
    errColors: Boolean(defaults.getErrHasColors?.()),
  };
}

/**
 * The embedded data directory when the configuration names one; null on
 * PostgreSQL (every process opens the database itself) or when the
 * configuration is invalid (the command then says so, as before).
 */
function embeddedDataDir(): string | null {
  try {
    const config = loadConfig();
    return config.databaseUrl ? null : config.dataDir;
  } catch {
    return null;
  }
}

/** The file an import names, read here when the command goes to a server (which may not read it). */
function forwardedInput(socket: string, argv: string[]): { input?: string } {
  if (!fs.existsSync(socket)) return {};
  const input = fileToForward(argv, () => fs.readFileSync(0, "utf8"), process.cwd());
  return input === undefined ? {} : { input };
}

/**
 * The command line: sent to the server when one holds the embedded data
 * directory (src/admin-channel.ts), else run here.
 */
async function main(argv: string[]): Promise<number> {
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interactive: process.stderr.isTTY,
  };
  const dataDir = embeddedDataDir();
  if (dataDir) {
    const socket = adminSocketPath(dataDir);
    const forwarded = await forwardCommand(
      socket,
      { argv, cwd: process.cwd(), terminal: ownTerminal(), ...forwardedInput(socket, argv) },
      io,
    ).catch((error: unknown) => {
      io.stderr(`error: ${describeFailure(error)}\n`);
      return 1;
    });
    if (forwarded !== null) return forwarded;
  }
  return runCli(argv, io);
}

process.exitCode = await main(process.argv.slice(2));
