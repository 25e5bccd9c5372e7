import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { expect } from "chai";
import { DirectoryInUseError, lockDirectory } from "../../src/db/directory-lock.ts";

describe("embedded database directory lock", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "lock-test-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("refuses a directory held by another live process, naming it", async () => {
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      fs.writeFileSync(path.join(dir, "svc.lock"), String(other.pid));
      expect(() => lockDirectory(dir)).to.throw(DirectoryInUseError, String(other.pid));
    } finally {
      other.kill();
    }
  });

  it("takes over a lock left by a crashed process, and releases it", async () => {
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.on("exit", resolve));
    fs.writeFileSync(path.join(dir, "svc.lock"), String(gone.pid));
    const release = lockDirectory(dir);
    expect(fs.readFileSync(path.join(dir, "svc.lock"), "utf8")).to.equal(String(process.pid));
    release();
    expect(fs.existsSync(path.join(dir, "svc.lock"))).to.equal(false);
  });
});
