// The `sso` command-line group: add-oidc (client secret sealed at rest, re-sealed by secrets
// rotate), add-saml (metadata from a file or a URL), list, remove; and its refusals.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Command } from "commander";
import { buildProgram } from "../../src/cli/program.ts";
import { createOutput } from "../../src/cli/output.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { openKeyring, type Keyring } from "../../src/process/secrets-keyring.ts";
import { sealedKeyId } from "../../src/kernel/secret-box.ts";
import { ssoClientSecretContext } from "../../src/repositories/secrets.ts";
import { startSamlIdp, type SamlIdp } from "../helpers/idp/saml-idp.ts";

describe("CLI: sso commands", () => {
  let db: TestDatabase;
  let printed: string;
  let tmp: string;
  let keyring: () => Keyring;
  let idp: SamlIdp;

  /** Standard input of the next command (`--client-secret-stdin`), and what the last one wrote to standard error. */
  let stdin = "";
  let warned = "";

  async function cli(...args: string[]) {
    printed = "";
    warned = "";
    const output = createOutput(
      (text) => (printed += text),
      false,
      (text) => (warned += text),
    );
    const keepOpen = async () => ({ ...db, close: async () => {} });
    const readStdin = async () => stdin;
    const program = buildProgram(output, keepOpen, keepOpen, () => keyring(), tmp, undefined, null, { readStdin });
    const quiet = (command: Command) => {
      command.exitOverride().configureOutput({ writeOut: (s) => (printed += s), writeErr: (s) => (printed += s) });
      command.commands.forEach(quiet);
    };
    quiet(program);
    await program.parseAsync(["node", "cli", ...args]);
    return printed;
  }

  async function refused(...args: string[]): Promise<string> {
    try {
      await cli(...args);
    } catch (error) {
      const errors = (error as { extensions?: { errors?: unknown } }).extensions?.errors;
      return `${String(error)} ${JSON.stringify(errors ?? [])} ${printed}`;
    }
    throw new Error(`expected cli ${args.join(" ")} to fail`);
  }

  before(async function () {
    this.timeout(300_000);
    db = await freshDatabase();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sso-cli-test-"));
    keyring = () => openKeyring({ dataDir: tmp, secrets: { key: null, oldKeys: [] } });
    idp = await startSamlIdp();
    await cli("orgs", "create", "--slug", "state-u", "--name", "State University");
  });
  after(async () => {
    await idp?.close();
    await db?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("sso add-oidc stores the connection with its client secret sealed; sso list never shows it", async () => {
    const out = JSON.parse(
      await cli(
        "--json",
        "sso",
        "add-oidc",
        "--org",
        "state-u",
        "--domain",
        "State.EDU",
        "--issuer",
        "https://login.state.edu/",
        "--client-id",
        "dashboard",
        "--client-secret",
        "s3cret-value",
        "--role-claim",
        "groups",
        "--role-map",
        "staff=contributor, it-admins=admin",
      ),
    );
    expect(out).to.include({ protocol: "oidc", domain: "state.edu", issuer: "https://login.state.edu/" });
    expect(out.roleMap).to.deep.equal({ staff: "contributor", "it-admins": "admin" });
    const stored = await db.prisma.ssoConnection.findUniqueOrThrow({ where: { id: out.id } });
    expect(stored.oidcClientSecret).to.match(/^v1:/).and.not.contain("s3cret-value");
    expect(keyring().box.open(stored.oidcClientSecret!, ssoClientSecretContext(out.id))).to.equal("s3cret-value");

    const listed = await cli("sso", "list", "--org", "state-u");
    expect(listed).to.contain("state.edu").and.contain("groups: staff=contributor,it-admins=admin");
    expect(listed).to.not.contain("s3cret");
    expect(await cli("--json", "sso", "list", "--org", "state-u")).to.not.contain("s3cret");
  });

  it("sso add-oidc reads the client secret from standard input (--client-secret-stdin); --client-secret still works, with a warning", async () => {
    const base = ["sso", "add-oidc", "--org", "state-u", "--issuer", "https://login.state.edu/", "--client-id", "c"];
    stdin = "piped-secret\n";
    await cli(...base, "--domain", "piped.state.edu", "--client-secret-stdin");
    expect(warned).to.equal("");
    const stored = await db.prisma.ssoConnection.findFirstOrThrow({ where: { domain: "piped.state.edu" } });
    expect(keyring().box.open(stored.oidcClientSecret!, ssoClientSecretContext(stored.id))).to.equal("piped-secret");
    await cli(...base, "--domain", "flag.state.edu", "--client-secret", "argv-secret");
    expect(warned)
      .to.contain("warning: --client-secret puts the secret in the process list")
      .and.contain("--client-secret-stdin instead");
    expect(await refused(...base, "--domain", "none.state.edu")).to.contain(
      "give the client secret on standard input with --client-secret-stdin",
    );
    await cli("sso", "remove", stored.id);
    const flaggedId = (await db.prisma.ssoConnection.findFirstOrThrow({ where: { domain: "flag.state.edu" } })).id;
    await cli("sso", "remove", flaggedId);
  });

  it("secrets rotate re-seals the OIDC client secret under the new key", async () => {
    const before = await db.prisma.ssoConnection.findFirstOrThrow({ where: { domain: "state.edu" } });
    const rotated = JSON.parse(await cli("--json", "secrets", "rotate"));
    const after = await db.prisma.ssoConnection.findUniqueOrThrow({ where: { id: before.id } });
    expect(sealedKeyId(after.oidcClientSecret!))
      .to.equal(rotated.keyId)
      .and.not.equal(sealedKeyId(before.oidcClientSecret!));
    expect(keyring().box.open(after.oidcClientSecret!, ssoClientSecretContext(before.id))).to.equal("s3cret-value");
  });

  it("sso add-saml reads the IdP metadata from a file and from an https URL", async () => {
    const file = path.join(tmp, "idp-metadata.xml");
    fs.writeFileSync(file, idp.metadataXml);
    const fromFile = JSON.parse(
      await cli(
        "--json",
        "sso",
        "add-saml",
        "--org",
        "state-u",
        "--domain",
        "med.state.edu",
        "--metadata",
        file,
        "--role-attribute",
        "eduPersonAffiliation",
        "--role-map",
        "staff=contributor",
      ),
    );
    expect(fromFile).to.include({ protocol: "saml", issuer: idp.entityId, ssoUrl: idp.ssoUrl });
    expect(fromFile.signingCertificates).to.have.length(1);
    // The test IdP speaks plain HTTP: https://idp.state.edu/metadata reaches it as a TLS-terminating proxy would.
    const realFetch = globalThis.fetch;
    const fetched: string[] = [];
    globalThis.fetch = (async (input: string | URL, init?: RequestInit) => {
      fetched.push(String(input));
      return realFetch(String(input) === "https://idp.state.edu/metadata" ? idp.metadataUrl : input, init);
    }) as typeof fetch;
    let text: string;
    try {
      text = await cli(
        "sso",
        "add-saml",
        "--org",
        "state-u",
        "--domain",
        "law.state.edu",
        "--metadata",
        "https://idp.state.edu/metadata",
      );
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(fetched).to.deep.equal(["https://idp.state.edu/metadata"]);
    expect(text).to.contain("Added SAML sign-in for @law.state.edu").and.contain("signing certificate SHA-256");
    const all = JSON.parse(await cli("--json", "sso", "list", "--org", "state-u"));
    expect(all.map((c: { domain: string }) => c.domain)).to.deep.equal(["state.edu", "med.state.edu", "law.state.edu"]);
  });

  it("refuses a domain that already has a connection, a bad role map, unusable metadata, plain-http metadata and a plain-http issuer", async () => {
    const base = ["sso", "add-oidc", "--org", "state-u", "--client-id", "c", "--client-secret", "s"];
    expect(await refused(...base, "--domain", "state.edu", "--issuer", "https://x.example/")).to.contain(
      "already has a sign-in connection",
    );
    expect(await refused(...base, "--domain", "new.edu", "--issuer", "http://login.new.edu/")).to.contain("https URL");
    expect(
      await refused(
        ...base,
        "--domain",
        "new.edu",
        "--issuer",
        "https://x.example/",
        "--role-claim",
        "g",
        "--role-map",
        "staff=owner",
      ),
    ).to.contain("not one of viewer, contributor, admin");
    const bad = path.join(tmp, "not-metadata.xml");
    fs.writeFileSync(bad, "<html><body>sign in</body></html>");
    expect(await refused("sso", "add-saml", "--org", "state-u", "--domain", "new.edu", "--metadata", bad)).to.contain(
      "IDPSSODescriptor",
    );
    // Metadata carries the certificates that sign assertions: never over plain http, where anyone on the path could swap them.
    expect(
      await refused("sso", "add-saml", "--org", "state-u", "--domain", "new.edu", "--metadata", idp.metadataUrl),
    ).to.contain("must be fetched over https");
  });

  it("sso remove deletes a connection; removing it again is refused", async () => {
    const [first] = JSON.parse(await cli("--json", "sso", "list", "--org", "state-u"));
    expect(await cli("sso", "remove", first.id)).to.contain(`Removed sign-in connection ${first.id}`);
    const left = JSON.parse(await cli("--json", "sso", "list", "--org", "state-u"));
    expect(left.map((c: { id: string }) => c.id)).to.not.include(first.id);
    expect(await refused("sso", "remove", first.id)).to.contain("No sign-in connection");
  });
});
