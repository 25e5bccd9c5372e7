// The log destination of the processes: lines written in blocks, none lost at exit.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { blockBufferedDestination, createLogger } from "../../src/kernel/logger.ts";

const LOGGER = path.resolve(import.meta.dirname, "../../src/kernel/logger.ts");

function linesOf(file: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("log destination", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-log-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("holds short lines back until a block fills, then writes them together", () => {
    const file = path.join(dir, "block.log");
    const log = createLogger("info", blockBufferedDestination(file));
    log.info("first");
    expect(fs.readFileSync(file, "utf8")).to.equal("");
    for (let index = 0; index < 100; index++) log.info({ index }, "a request line of some length");
    return new Promise<void>((resolve) => {
      const check = () => {
        const written = linesOf(file);
        if (written.length) {
          expect(written[0].msg).to.equal("first");
          resolve();
        } else setImmediate(check);
      };
      check();
    });
  });

  it("writes a lone line without waiting for a block to fill", async () => {
    const file = path.join(dir, "lone.log");
    const log = createLogger("info", blockBufferedDestination(file));
    log.info("alone");
    // The flush timer writes it: wait for the file without assuming how long that takes.
    while (!fs.readFileSync(file, "utf8").includes("alone")) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(linesOf(file).map((line) => line.msg)).to.deep.equal(["alone"]);
  });

  it("loses no line when the process exits, by process.exit or by an uncaught error", () => {
    for (const ending of ["process.exit(3)", "throw new Error('boom')"]) {
      const file = path.join(dir, `exit-${ending.length}.log`);
      const script = `
        import { blockBufferedDestination, createLogger } from ${JSON.stringify(LOGGER)};
        const log = createLogger("info", blockBufferedDestination(${JSON.stringify(file)}));
        for (let index = 0; index < 50; index++) log.info({ index }, "line");
        setImmediate(() => { ${ending}; });`;
      try {
        execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "pipe" });
      } catch {
        // Both endings exit with a failure status; the file is what counts.
      }
      expect(linesOf(file).map((line) => line.index)).to.deep.equal([...Array(50).keys()]);
    }
  });
});
