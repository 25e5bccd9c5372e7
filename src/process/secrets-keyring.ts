// Where the key that seals stored secrets comes from: SVC_SECRETS_KEY (with
// SVC_SECRETS_OLD_KEYS for values sealed before a rotation), or else a key
// file in the data directory, created with mode 0600 on first start. The key
// file holds one key per line: the first seals, the others only open.
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../kernel/config.ts";
import { SecretBox, generateSecretsKey, parseSecretsKey } from "../kernel/secret-box.ts";

export const KEY_FILE_NAME = "secrets.key";

const KEY_FILE_HEADER = [
  "# Course and equivalency repository: the key that seals stored secrets (webhook secrets, the",
  "# token-signing key). The first key seals; later ones only open values sealed before a rotation.",
  "# Keep this file private and back it up apart from the database: without it no secret opens.",
];

export interface Keyring {
  box: SecretBox;
  /** The key file, when the keys come from one (SVC_SECRETS_KEY unset). */
  keyFile: string | null;
  /** For messages: where the keys come from. */
  source: string;
}

export function keyFilePath(dataDir: string): string {
  return path.join(dataDir, KEY_FILE_NAME);
}

export class KeyFileError extends Error {
  constructor(file: string, problem: string) {
    super(`The secrets key file ${file} ${problem}.`);
    this.name = "KeyFileError";
  }
}

/** The configured keys; without SVC_SECRETS_KEY, the data directory's key file (created when missing). */
export function openKeyring(config: Pick<Config, "secrets" | "dataDir">): Keyring {
  if (config.secrets.key) {
    return { box: new SecretBox(config.secrets.key, config.secrets.oldKeys), keyFile: null, source: "SVC_SECRETS_KEY" };
  }
  const file = keyFilePath(config.dataDir);
  createKeyFileIfMissing(file);
  return { box: boxOf(readKeyFile(file)), keyFile: file, source: file };
}

export function readKeyFile(file: string): Buffer[] {
  checkPrivate(file);
  const lines = fs
    .readFileSync(file, "utf8")
    .split(/\r?\n/)
    .map((line) => line.trim());
  const keys = lines.filter((line) => line && !line.startsWith("#")).map((line) => parseSecretsKey(line));
  if (!keys.length) throw new KeyFileError(file, "holds no key");
  if (keys.some((key) => !key))
    throw new KeyFileError(file, "holds a line that is not a 32-byte key in hex, base64 or base64url");
  return keys as Buffer[];
}

/**
 * Puts a new key first in the key file, keeping the others to open what they
 * sealed; the file is replaced atomically, so a crash leaves the old or the new
 * file, never half of one. Returns the box of the new keys.
 */
export function addKeyToFile(file: string): SecretBox {
  const keys = [Buffer.from(generateSecretsKey(), "base64url"), ...readKeyFile(file)];
  writeKeyFile(file, keys);
  return boxOf(keys);
}

/** Leaves only the current (first) key in the key file, once nothing is sealed under the others. */
export function pruneKeyFile(file: string): void {
  writeKeyFile(file, readKeyFile(file).slice(0, 1));
}

/**
 * A key file others may read is a key others may have: refused (one line, naming the fix) rather
 * than used silently. So is one of another user, who could replace the key.
 */
function checkPrivate(file: string): void {
  const { mode, uid } = fs.statSync(file);
  const own = process.getuid?.();
  if (own !== undefined && uid !== own)
    throw new KeyFileError(
      file,
      `belongs to another user (uid ${uid}, this process is uid ${own}); run the service as its owner`,
    );
  if (mode & 0o077)
    throw new KeyFileError(
      file,
      `may be read or changed by other users (mode ${(mode & 0o777).toString(8).padStart(4, "0")}); make it private with chmod 600 ${file}`,
    );
}

function boxOf(keys: Buffer[]): SecretBox {
  return new SecretBox(keys[0], keys.slice(1));
}

function render(keys: Buffer[]): string {
  return [...KEY_FILE_HEADER, ...keys.map((key) => key.toString("base64url")), ""].join("\n");
}

function createKeyFileIfMissing(file: string): void {
  if (fs.existsSync(file)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = writeTemporary(file, [Buffer.from(generateSecretsKey(), "base64url")]);
  try {
    // A hard link appears complete or not at all, and never replaces a file: of two processes
    // starting at once, one creates the key file and the other uses it.
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

function writeKeyFile(file: string, keys: Buffer[]): void {
  fs.renameSync(writeTemporary(file, keys), file);
}

function writeTemporary(file: string, keys: Buffer[]): string {
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(temporary, render(keys), { mode: 0o600, flag: "wx" });
  fs.chmodSync(temporary, 0o600);
  return temporary;
}
