// CPU profiles of a benchmark's server process over exactly the measured window
// (not its start-up): the parent asks over IPC, the server runs V8's profiler
// through node:inspector and writes a .cpuprofile that profile-summary.ts reads.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import { Session } from "node:inspector/promises";

interface ProfileMessage {
  profile: "start" | "stop" | "started" | "stopped";
  file?: string;
}

const isProfileMessage = (message: unknown): message is ProfileMessage =>
  typeof message === "object" && message !== null && "profile" in message;

/** In the server process: start and stop the profiler when the parent asks. */
export function answerProfileRequests(): void {
  let session: Session | undefined;
  process.on("message", async (message: unknown) => {
    if (!isProfileMessage(message)) return;
    if (message.profile === "start") {
      session = new Session();
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.start");
      process.send!({ profile: "started" });
    } else if (message.profile === "stop" && session && message.file) {
      const { profile } = await session.post("Profiler.stop");
      fs.writeFileSync(message.file, JSON.stringify(profile));
      session.disconnect();
      session = undefined;
      process.send!({ profile: "stopped" });
    }
  });
}

function reply(child: ChildProcess, expected: ProfileMessage["profile"]): Promise<void> {
  return new Promise((resolve) => {
    const listen = (message: unknown) => {
      if (!isProfileMessage(message) || message.profile !== expected) return;
      child.off("message", listen);
      resolve();
    };
    child.on("message", listen);
  });
}

/** In the parent: profiles the child while `work` runs, into `file`. */
export async function profileWhile<T>(child: ChildProcess, file: string, work: () => Promise<T>): Promise<T> {
  const started = reply(child, "started");
  child.send({ profile: "start" });
  await started;
  const result = await work();
  const stopped = reply(child, "stopped");
  child.send({ profile: "stop", file });
  await stopped;
  return result;
}
