import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import {
  SecretBox,
  SecretBoxError,
  generateSecretsKey,
  parseSecretsKey,
  sealedKeyId,
  secretsKeyId,
} from "../../src/kernel/secret-box.ts";
import {
  addKeyToFile,
  keyFilePath,
  KeyFileError,
  openKeyring,
  pruneKeyFile,
  readKeyFile,
} from "../../src/process/secrets-keyring.ts";

const key = () => crypto.randomBytes(32);

describe("secret box (AES-256-GCM, key id with every value)", () => {
  it("seals to v1:<key id>:<iv>:<tag>:<ciphertext> and opens it back; every seal differs", () => {
    const box = new SecretBox(key());
    const sealed = box.seal("whsec_abc", "webhook-secret:wh_1");
    expect(sealed).to.match(/^v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    expect(sealed.split(":")[1]).to.equal(box.keyId);
    expect(sealed).to.not.contain("whsec_abc");
    expect(box.seal("whsec_abc", "webhook-secret:wh_1")).to.not.equal(sealed);
    expect(box.open(sealed, "webhook-secret:wh_1")).to.equal("whsec_abc");
    expect(sealedKeyId(sealed)).to.equal(box.keyId);
    expect(sealedKeyId("whsec_abc")).to.equal(null);
  });

  it("refuses a value moved to another record, an altered value, and a value in the clear", () => {
    const box = new SecretBox(key());
    const sealed = box.seal("whsec_abc", "webhook-secret:wh_1");
    expect(() => box.open(sealed, "webhook-secret:wh_2")).to.throw(SecretBoxError, /altered, or moved/);
    const parts = sealed.split(":");
    const flipped = Buffer.from(parts[4], "base64url");
    flipped[0] ^= 1;
    expect(() =>
      box.open([...parts.slice(0, 4), flipped.toString("base64url")].join(":"), "webhook-secret:wh_1"),
    ).to.throw(SecretBoxError);
    expect(() => box.open("whsec_abc", "webhook-secret:wh_1")).to.throw(SecretBoxError, /not a sealed secret/);
  });

  it("opens values of older keys, seals only with the current one, and names a missing key by its id", () => {
    const old = key();
    const current = key();
    const before = new SecretBox(old).seal("secret", "ctx");
    const rotated = new SecretBox(current, [old]);
    expect(rotated.keyIds).to.deep.equal([secretsKeyId(current), secretsKeyId(old)]);
    expect(rotated.open(before, "ctx")).to.equal("secret");
    expect(rotated.needsSealing(before)).to.equal(true);
    expect(rotated.needsSealing(rotated.seal("secret", "ctx"))).to.equal(false);
    expect(rotated.needsSealing("in the clear")).to.equal(true);
    expect(() => new SecretBox(current).open(before, "ctx")).to.throw(
      SecretBoxError,
      new RegExp(`key id ${secretsKeyId(old)}`),
    );
  });

  it("reads a key as 64 hex digits, base64 or base64url, and nothing else", () => {
    const bytes = key();
    expect(parseSecretsKey(bytes.toString("hex"))!.equals(bytes)).to.equal(true);
    expect(parseSecretsKey(bytes.toString("base64"))!.equals(bytes)).to.equal(true);
    expect(parseSecretsKey(bytes.toString("base64url"))!.equals(bytes)).to.equal(true);
    expect(parseSecretsKey(` ${generateSecretsKey()}\n`)).to.have.length(32);
    for (const bad of [
      "",
      "short",
      crypto.randomBytes(16).toString("hex"),
      crypto.randomBytes(48).toString("base64"),
      "g".repeat(64),
    ]) {
      expect(parseSecretsKey(bad), bad).to.equal(null);
    }
  });
});

describe("secrets keyring (SVC_SECRETS_KEY or the data directory's key file)", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-keyring-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const unset = { key: null, oldKeys: [] };

  it("uses SVC_SECRETS_KEY (and SVC_SECRETS_OLD_KEYS) without touching the data directory", () => {
    const current = key();
    const old = key();
    const keyring = openKeyring({ dataDir: dir, secrets: { key: current, oldKeys: [old] } });
    expect(keyring).to.include({ keyFile: null, source: "SVC_SECRETS_KEY" });
    expect(keyring.box.keyIds).to.deep.equal([secretsKeyId(current), secretsKeyId(old)]);
    expect(fs.readdirSync(dir)).to.deep.equal([]);
  });

  it("creates the key file with mode 0600 on first use and reuses it afterwards", () => {
    const dataDir = path.join(dir, "data");
    const first = openKeyring({ dataDir, secrets: unset });
    expect(first.keyFile).to.equal(keyFilePath(dataDir));
    expect(fs.statSync(first.keyFile!).mode & 0o777).to.equal(0o600);
    const second = openKeyring({ dataDir, secrets: unset });
    expect(second.box.keyId).to.equal(first.box.keyId);
    expect(fs.readdirSync(dataDir)).to.deep.equal(["secrets.key"]);
  });

  it("adds a key first (the old one still opens), then prunes to the current key, keeping mode 0600", () => {
    const { keyFile, box } = openKeyring({ dataDir: dir, secrets: unset });
    const sealed = box.seal("secret", "ctx");
    const next = addKeyToFile(keyFile!);
    expect(next.keyId).to.not.equal(box.keyId);
    expect(next.open(sealed, "ctx")).to.equal("secret");
    expect(readKeyFile(keyFile!)).to.have.length(2);
    pruneKeyFile(keyFile!);
    expect(readKeyFile(keyFile!)).to.have.length(1);
    expect(openKeyring({ dataDir: dir, secrets: unset }).box.keyIds).to.deep.equal([next.keyId]);
    expect(fs.statSync(keyFile!).mode & 0o777).to.equal(0o600);
    expect(fs.readdirSync(dir)).to.deep.equal(["secrets.key"]);
  });

  it("refuses a key file without a valid key, naming the file", () => {
    fs.writeFileSync(keyFilePath(dir), "# only a comment\n", { mode: 0o600 });
    expect(() => openKeyring({ dataDir: dir, secrets: unset })).to.throw(KeyFileError, /holds no key/);
    fs.writeFileSync(keyFilePath(dir), "not-a-key\n");
    expect(() => openKeyring({ dataDir: dir, secrets: unset })).to.throw(KeyFileError, /secrets\.key holds a line/);
  });

  it("refuses an existing key file that other users may read or change, in one line naming the fix", () => {
    const { keyFile } = openKeyring({ dataDir: dir, secrets: unset });
    for (const mode of [0o644, 0o640, 0o604, 0o620]) {
      fs.chmodSync(keyFile!, mode);
      expect(() => openKeyring({ dataDir: dir, secrets: unset }), mode.toString(8))
        .to.throw(KeyFileError)
        .with.property("message")
        .that.equals(
          `The secrets key file ${keyFile} may be read or changed by other users (mode 0${mode.toString(8)}); make it private with chmod 600 ${keyFile}.`,
        );
    }
    fs.chmodSync(keyFile!, 0o400);
    expect(openKeyring({ dataDir: dir, secrets: unset }).keyFile).to.equal(keyFile);
  });
});
