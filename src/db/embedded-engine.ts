// The main thread's end of the embedded database: starts the thread that
// owns PGlite (src/db/embedded-thread.ts), sends it requests and matches the
// replies. If the thread dies (a crash in the engine, running out of memory),
// every pending and later request fails with EmbeddedEngineStoppedError instead
// of waiting forever, and `stopped` settles so the process can act on it.
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import type { EmbeddedSource, EngineCall, EngineReply, EngineRequest, SerializedError } from "./embedded-protocol.ts";

export class EmbeddedEngineStoppedError extends Error {
  override name = "EmbeddedEngineStoppedError";
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Run from TypeScript sources, the thread starts through a file that registers tsx first. */
function startThread(): Worker {
  const fromSources = path.extname(new URL(import.meta.url).pathname) === ".ts";
  const entry = new URL(fromSources ? "./embedded-thread-tsx.mjs" : "./embedded-thread.js", import.meta.url);
  return new Worker(entry, { name: "embedded-database" });
}

function rebuild(serialized: SerializedError): Error {
  if (serialized.driverCause)
    return new DriverAdapterError(serialized.driverCause as ConstructorParameters<typeof DriverAdapterError>[0]);
  const error = Object.assign(new Error(serialized.message), serialized.fields);
  error.name = serialized.name;
  if (serialized.stack) error.stack = serialized.stack;
  return error;
}

export class EmbeddedEngine {
  private thread: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: EmbeddedEngineStoppedError | null = null;
  private closing = false;
  private lastError: Error | null = null;
  private reportStopped!: (reason: EmbeddedEngineStoppedError) => void;
  /** Settles with the reason when the thread stops other than by close() or restart(). */
  readonly stopped: Promise<EmbeddedEngineStoppedError>;

  private constructor(private readonly source: EmbeddedSource) {
    this.stopped = new Promise((resolve) => {
      this.reportStopped = resolve;
    });
    this.thread = this.attach(startThread());
  }

  private attach(thread: Worker): Worker {
    // Idle, the thread does not keep the process alive, like a PGlite on the main
    // thread did; call() holds a reference while any request is under way.
    thread.unref();
    thread.on("message", (reply: EngineReply) => this.settle(reply));
    thread.on("error", (error) => (this.lastError = error));
    thread.once("exit", (code) => {
      if (thread !== this.thread) return; // a thread replaced by restart()
      const reason = this.lastError ? `: ${this.lastError.message}` : "";
      this.failure = new EmbeddedEngineStoppedError(
        `The embedded database's thread stopped (exit code ${code})${reason}.`,
      );
      for (const { reject } of this.pending.values()) reject(this.failure);
      this.pending.clear();
      if (!this.closing) this.reportStopped(this.failure);
    });
    return thread;
  }

  /**
   * Closes PostgreSQL, ends its thread and opens the same data in a new one. A
   * WebAssembly memory only grows: what creating, migrating and seeding a database
   * made PostgreSQL's heap grow to stays resident until its thread ends. Only
   * between requests (at start-up); a request under way is refused.
   */
  async restart(): Promise<void> {
    if (this.pending.size) throw new Error("The embedded database cannot restart while requests are under way.");
    await this.call({ op: "close" });
    const previous = this.thread;
    this.thread = this.attach(startThread());
    await previous.terminate();
    await this.call({ op: "open", source: this.source });
  }

  static async open(source: EmbeddedSource): Promise<EmbeddedEngine> {
    if (source.kind === "directory" && !fs.existsSync(path.join(source.path, "PG_VERSION"))) {
      // Creating a data directory (initdb) leaves some 350 MB of WebAssembly memory
      // that only a garbage collection would free, and an idle thread seldom collects.
      // Created in a thread of its own, it is all returned when that thread ends.
      await (await EmbeddedEngine.start(source)).close();
    }
    return EmbeddedEngine.start(source);
  }

  private static async start(source: EmbeddedSource): Promise<EmbeddedEngine> {
    const engine = new EmbeddedEngine(source);
    try {
      await engine.call({ op: "open", source });
    } catch (error) {
      await engine.thread.terminate();
      throw error;
    }
    return engine;
  }

  call<T = unknown>(request: EngineRequest): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    if (this.pending.size === 0) this.thread.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        this.thread.postMessage({ ...request, id } satisfies EngineCall);
      } catch (error) {
        // A value that cannot be cloned (a function, a symbol) fails here, before anything is sent.
        this.take(id)?.reject(error as Error);
      }
    });
  }

  private take(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) this.thread.unref();
    return pending;
  }

  private settle(reply: EngineReply): void {
    const pending = this.take(reply.id);
    if (!pending) return;
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(rebuild(reply.error));
  }

  /** Shuts PGlite down cleanly (its data directory is then consistent without recovery), then ends the thread. */
  async close(): Promise<void> {
    if (this.failure) return;
    try {
      await this.call({ op: "close" });
    } finally {
      this.closing = true;
      await this.thread.terminate();
    }
  }

  /** Ends the thread at once, as a crash would (tests of crash handling). */
  async kill(): Promise<void> {
    await this.thread.terminate();
  }
}
