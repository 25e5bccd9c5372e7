// The administrator's commands as a running server executes them over its admin channel. The
// command program (commander, cli-progress and everything the commands import) loads with the
// first command rather than with the server: most servers never receive one, and the program
// costs resident memory for as long as the process lives (docs/benchmarks.md).
import type { Database } from "../db/database.ts";
import type { CommandRunner } from "../process/admin-channel.ts";
import type { RunningServer } from "./program.ts";

type CommandProgram = typeof import("./program.ts");

let commandProgram: Promise<CommandProgram> | null = null;

/** The command program, imported by the first caller; callers meanwhile share that one import. */
export function loadCommandProgram(): Promise<CommandProgram> {
  commandProgram ??= import("./program.ts").catch((error: unknown) => {
    commandProgram = null; // a failed import is tried again by the next command
    throw error;
  });
  return commandProgram;
}

/** Runs each command on the server's own `database`, loading the command program at the first one. */
export function serverCommandRunner(database: Database, server?: RunningServer): CommandRunner {
  let runner: CommandRunner | null = null;
  return async (request, io) => {
    runner ??= (await loadCommandProgram()).serverCommandRunner(database, undefined, server);
    return runner(request, io);
  };
}
