// The `secrets` group of the CLI: the keys that seal stored secrets, and their rotation.
import type { Command } from "commander";
import { generateSecretsKey } from "../kernel/secret-box.ts";
import { whileNoServerRuns } from "../process/server-presence.ts";
import { addKeyToFile, pruneKeyFile, type Keyring } from "../process/secrets-keyring.ts";
import type { Services } from "../services/index.ts";
import { CLEAR } from "../services/stored-secrets.ts";
import type { WithServices } from "./options.ts";
import type { Output } from "./output.ts";

/** The keys that seal stored secrets, as the server finds them. Tests pass their own. */
export type KeyringOpener = () => Keyring;

export function addSecretsCommands(
  program: Command,
  output: Output,
  withServices: WithServices,
  openKeys: KeyringOpener,
  /** Inside a running server (its channel), which keeps the keys it started with. */
  besideServer: boolean,
): void {
  const secrets = program
    .command("secrets")
    .description("Keys that seal stored secrets (webhook secrets, the token-signing key)");
  secrets
    .command("generate-key")
    .description("Print a new random key for SVC_SECRETS_KEY (32 bytes, base64url)")
    .action(() => {
      const key = generateSecretsKey();
      output.result({ key }, key);
    });
  secrets
    .command("status")
    .description("Count stored secrets by the key id that sealed them")
    .action(() =>
      withServices(async ({ storedSecrets }) => {
        const keyring = openKeys();
        const counts = await storedSecrets.countByKeyId();
        const role = (keyId: string) =>
          keyId === CLEAR
            ? "in the clear"
            : keyId === keyring.box.keyId
              ? "current key"
              : keyring.box.keyIds.includes(keyId)
                ? "older key"
                : "unknown key";
        const rows = Object.entries(counts).map(([keyId, values]) => ({ keyId, values, key: role(keyId) }));
        output.result(
          { currentKeyId: keyring.box.keyId, keyIds: keyring.box.keyIds, source: keyring.source, counts },
          [
            `Current key id ${keyring.box.keyId} (from ${keyring.source}).`,
            ...rows.map((r) => `  ${r.keyId}: ${r.values} value(s), ${r.key}`),
          ].join("\n"),
        );
      }),
    );
  secrets
    .command("rotate")
    .description(
      "Re-seal every stored secret under the current key. With the key file (SVC_SECRETS_KEY unset), a new key is " +
        "generated first and the old one removed afterwards; with SVC_SECRETS_KEY, set the new key there and the old one " +
        "in SVC_SECRETS_OLD_KEYS before running it",
    )
    .action(() =>
      withServices(async ({ storedSecrets }, database) => {
        const keyring = openKeys();
        // The running server keeps the keys it started with: a new key file key would strand it (it
        // could open nothing re-sealed, and would seal under a key removed from the file).
        const besideRunningServer = () =>
          new Error(
            `secrets rotate cannot change the key file ${keyring.keyFile} beside the running server, which keeps the key it started with; nothing was changed: stop the server, run secrets rotate, then start the server again.`,
          );
        if (besideServer && keyring.keyFile) throw besideRunningServer();
        // On PostgreSQL the server runs in processes of its own: it holds a lock this waits for in vain.
        if (keyring.keyFile && database.kind === "postgresql") {
          const done = await whileNoServerRuns(database, () => rotate(storedSecrets, keyring));
          if (done === null) throw besideRunningServer();
          return;
        }
        await rotate(storedSecrets, keyring);
      }),
    );

  async function rotate(storedSecrets: Services["storedSecrets"], keyring: Keyring): Promise<void> {
    await storedSecrets.assertEverySecretOpens(keyring.box, keyring.source);
    const box = keyring.keyFile ? addKeyToFile(keyring.keyFile) : keyring.box;
    const { sealed } = await storedSecrets.sealStoredSecrets(box, "all");
    const left = Object.entries(await storedSecrets.countByKeyId()).filter(([keyId]) => keyId !== box.keyId);
    if (left.length)
      throw new Error(
        `Some values were written under another key meanwhile (${left.map(([k, n]) => `${k}: ${n}`).join(", ")}); run secrets rotate again.`,
      );
    if (keyring.keyFile) pruneKeyFile(keyring.keyFile);
    const count = Object.values(sealed).reduce((sum, n) => sum + n, 0);
    const advice = keyring.keyFile
      ? `The key file ${keyring.keyFile} now holds only the new key; restart the server.`
      : count
        ? "Nothing is sealed under an older key any more: SVC_SECRETS_OLD_KEYS can be removed."
        : "To rotate, put a new key (secrets generate-key) in SVC_SECRETS_KEY and this one in SVC_SECRETS_OLD_KEYS, restart, and run secrets rotate again.";
    output.result(
      { keyId: box.keyId, source: keyring.source, resealed: sealed },
      `Re-sealed ${count} stored secret(s) under key id ${box.keyId}. ${advice}`,
    );
  }
}
