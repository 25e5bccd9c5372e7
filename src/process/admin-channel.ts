// The administrative channel. The embedded database is one process's: while the
// server holds it, the CLI cannot open it. So the server listens on a Unix socket
// in the data directory (mode 0600: only the owner of the data directory can
// connect), the CLI sends it its arguments, and the server runs the very same
// commander program with the output captured and sent back, standard output and
// standard error kept apart and in order, then the exit code. Nothing here knows
// a command: every command the CLI has works over the channel as it is.
//
// The wire: one JSON line from the CLI (the request), then JSON lines from the
// server, {"out": text}, {"err": text}, and last {"exit": code}.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Logger } from "../kernel/logger.ts";

export const ADMIN_SOCKET_NAME = "svc.sock";

/** Where a server holding the embedded database in dataDir listens for the CLI. */
export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, ADMIN_SOCKET_NAME);
}

/** How the CLI's own terminal looks, so that help text wraps and colours as it would have. */
export interface Terminal {
  outColumns?: number;
  errColumns?: number;
  outColors: boolean;
  errColors: boolean;
}

export interface CommandRequest {
  argv: string[];
  /** The CLI's working directory: relative file arguments are read from there. */
  cwd: string;
  terminal: Terminal;
  /**
   * The content of the file the command imports (`equivalencies import --file`, or standard
   * input), read by the CLI: the server may not be able to read the operator's files.
   */
  input?: string;
}

export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Aborts when the person stops the command (Ctrl-C; over the channel, the CLI's socket closing). */
  signal?: AbortSignal;
}

/** Runs one command to its end and returns its exit code; never throws for the command's own failures. */
export type CommandRunner = (request: CommandRequest, io: CommandIo) => Promise<number>;

export interface AdminChannel {
  path: string;
  close(): Promise<void>;
}

/** A request is a command line, and for an import the file's text: 64 MB is far more than any needs. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

function parseRequest(line: string): CommandRequest {
  const value = JSON.parse(line) as Partial<CommandRequest>;
  if (!Array.isArray(value.argv) || !value.argv.every((a) => typeof a === "string") || typeof value.cwd !== "string")
    throw new Error("not a command request");
  const terminal = (value.terminal ?? {}) as Partial<Terminal>;
  return {
    ...(typeof value.input === "string" ? { input: value.input } : {}),
    argv: value.argv,
    cwd: value.cwd,
    terminal: {
      outColumns: typeof terminal.outColumns === "number" ? terminal.outColumns : undefined,
      errColumns: typeof terminal.errColumns === "number" ? terminal.errColumns : undefined,
      outColors: terminal.outColors === true,
      errColors: terminal.errColors === true,
    },
  };
}

/**
 * Listens on socketPath. The caller holds the data directory's lock, so a socket
 * file already there was left by a process that died: it is replaced. Commands
 * run one at a time, as they would from one terminal.
 */
export async function openAdminChannel(socketPath: string, run: CommandRunner, log: Logger): Promise<AdminChannel> {
  fs.rmSync(socketPath, { force: true });
  let queue: Promise<unknown> = Promise.resolve();
  const connections = new Set<net.Socket>();

  const server = net.createServer((socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
    socket.on("error", () => undefined); // the CLI went away (Ctrl-C): the command still finishes
    socket.setEncoding("utf8");
    let received = "";
    let started = false;
    socket.on("data", (chunk: string) => {
      if (started) return;
      received += chunk;
      const end = received.indexOf("\n");
      if (end < 0) {
        if (received.length > MAX_REQUEST_BYTES) socket.destroy();
        return;
      }
      started = true;
      let request: CommandRequest;
      try {
        request = parseRequest(received.slice(0, end));
      } catch {
        socket.end(`${JSON.stringify({ err: "error: the administrative channel received no command\n" })}\n`);
        return;
      }
      const send = (message: object) => {
        if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
      };
      // A command that runs until stopped (events tail) stops when the CLI goes away.
      const stopped = new AbortController();
      socket.once("close", () => stopped.abort());
      const io: CommandIo = {
        stdout: (text) => send({ out: text }),
        stderr: (text) => send({ err: text }),
        signal: stopped.signal,
      };
      queue = queue.then(async () => {
        const words = request.argv.filter((a) => /^[a-z][a-z-]*$/.test(a)).slice(0, 2);
        log.info({ command: words.join(" ") }, "administrative command");
        let code: number;
        try {
          code = await run(request, io);
        } catch (error) {
          log.error({ err: error }, "administrative command failed");
          io.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`);
          code = 1;
        }
        if (!socket.destroyed) socket.end(`${JSON.stringify({ exit: code })}\n`);
      });
    });
  });

  // Created owner-only from the start (no moment where others could connect), then made sure of.
  const umask = process.umask(0o177);
  const listening = new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.once("listening", () => resolve());
  });
  try {
    server.listen(socketPath);
  } finally {
    process.umask(umask);
  }
  await listening;
  fs.chmodSync(socketPath, 0o600);
  return {
    path: socketPath,
    async close() {
      await queue.catch(() => undefined);
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(socketPath, { force: true });
    },
  };
}

/** A socket the CLI will not talk to: its arguments (secrets among them) would go to another user. */
export class ForeignSocketError extends Error {}

/**
 * The CLI sends its arguments only to a socket of its own user: another user's socket in the data
 * directory (a directory others can write to, or a copy of it) could be anyone's listener.
 */
function checkOwnSocket(socketPath: string, uid: number | undefined): void {
  if (uid === undefined) return; // no uids on this platform
  const owner = fs.lstatSync(socketPath).uid;
  if (owner !== uid)
    throw new ForeignSocketError(
      `${socketPath} belongs to another user (uid ${owner}, you are uid ${uid}), so the command was not sent to it; run the CLI as the user who runs the server, or remove the file if no server of yours runs.`,
    );
}

/**
 * Sends a command to the server holding the data directory and relays its
 * output. Resolves to the command's exit code, or to null when no server
 * answers on the socket (none runs, or it died and left the file behind): the
 * CLI then runs the command itself. Rejects with ForeignSocketError, sending
 * nothing, when the socket belongs to another user.
 */
export function forwardCommand(
  socketPath: string,
  request: CommandRequest,
  io: CommandIo,
  uid: number | undefined = process.getuid?.(),
): Promise<number | null> {
  if (!fs.existsSync(socketPath)) return Promise.resolve(null);
  try {
    checkOwnSocket(socketPath, uid);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let connected = false;
    let exitCode: number | null = null;
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const message = JSON.parse(buffer.slice(0, end)) as { out?: string; err?: string; exit?: number };
        buffer = buffer.slice(end + 1);
        if (typeof message.out === "string") io.stdout(message.out);
        if (typeof message.err === "string") io.stderr(message.err);
        if (typeof message.exit === "number") exitCode = message.exit;
      }
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (!connected) resolve(null);
      else reject(error);
    });
    socket.on("close", () => {
      if (!connected) return;
      if (exitCode === null)
        reject(new Error("The server stopped before the command finished; check its log, then run the command again."));
      else resolve(exitCode);
    });
  });
}
