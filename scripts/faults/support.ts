// What the fault scripts share: a private PostgreSQL server of their own (never
// the machine's shared one, which other work uses) that they may stop and start,
// a receiver that notes deliveries in flight twice at once, and the setup of an
// organization, a key and a webhook endpoint.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/kernel/config.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { openMigratedDatabase } from "../../src/process/startup.ts";
import { createRepositories } from "../../src/repositories/index.ts";
import { createOrganizationsService } from "../../src/services/organizations.ts";
import { createKeysService } from "../../src/services/keys.ts";
import { createStewardshipService } from "../../src/services/stewardship.ts";
import { SecretBox, parseSecretsKey } from "../../src/kernel/secret-box.ts";
import { loadInstitutions } from "../../test/helpers/fixtures.ts";
import { insertEndpoint } from "../../test/helpers/webhooks.ts";

export const SECRETS_KEY = "d".repeat(64);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** initdb, pg_ctl and postgres of the newest installed PostgreSQL. */
function binDir(): string {
  const versions = fs
    .readdirSync("/usr/lib/postgresql")
    .filter((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/initdb`))
    .sort((a, b) => Number(b) - Number(a));
  if (!versions.length) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin");
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** A throwaway PostgreSQL server in a temporary directory, on a free port, run as the postgres user when we are root. */
export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private run(args: string[]): void {
    const asPostgres = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
    const [command, ...rest] = [...asPostgres, ...args];
    execFileSync(command, rest, { stdio: ["ignore", "ignore", "pipe"] });
  }

  static async create(): Promise<PrivatePostgres> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-fault-pg-"));
    if (process.getuid?.() === 0) execFileSync("chown", ["postgres:postgres", dir]);
    const server = new PrivatePostgres(dir, await freePort(), binDir());
    server.run([`${server.bin}/initdb`, "-D", `${dir}/data`, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
    server.start();
    return server;
  }

  start(): void {
    this.run([
      `${this.bin}/pg_ctl`,
      "-D",
      `${this.dir}/data`,
      "-l",
      `${this.dir}/server.log`,
      "-w",
      "-o",
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=on`,
      "start",
    ]);
  }

  /** Fast shutdown: sessions are cut, transactions in progress roll back, committed ones stay. */
  stop(): void {
    this.run([`${this.bin}/pg_ctl`, "-D", `${this.dir}/data`, "-m", "fast", "-w", "stop"]);
  }

  dispose(): void {
    try {
      this.stop();
    } catch {
      // already stopped
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Organization "acme" with a live key and every institution; an endpoint for course.updated at `url`. */
export async function prepare(databaseUrl: string, url: string): Promise<{ key: string }> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, SVC_SECRETS_KEY: SECRETS_KEY });
  const database = await openMigratedDatabase(config, createLogger("silent"));
  try {
    const repositories = createRepositories(database.prisma);
    const org = await createOrganizationsService(repositories).createOrganization({
      slug: "acme",
      name: "Acme",
      source: "channel_a",
    });
    await createStewardshipService(repositories).grantStewardship(org.id, "live", { all: true });
    await loadInstitutions(database.prisma, "live");
    await insertEndpoint(database.prisma, new SecretBox(parseSecretsKey(SECRETS_KEY)!), {
      organizationId: org.id,
      url,
      events: ["course.updated", "equivalency.updated"],
    });
    const { key } = await createKeysService(repositories).issueKey({ organizationId: org.id, environment: "live" });
    return { key };
  } finally {
    await database.close();
  }
}

export interface Received {
  eventId: string;
  delivery: string;
  body: string;
}

/** Answers 200 after `delayMs`; notes every delivery that arrives while the same delivery is in flight. */
export class TrackingReceiver {
  readonly received: Received[] = [];
  readonly overlaps: string[] = [];
  private readonly inFlight = new Set<string>();
  private readonly server: http.Server;
  url = "";

  constructor(private readonly delayMs = 20) {
    this.server = http.createServer((req, res) => {
      const delivery = String(req.headers["x-svc-delivery"]);
      if (this.inFlight.has(delivery)) this.overlaps.push(delivery);
      this.inFlight.add(delivery);
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () =>
        setTimeout(() => {
          this.received.push({
            eventId: String(req.headers["x-svc-event-id"]),
            delivery,
            body: Buffer.concat(chunks).toString("utf8"),
          });
          this.inFlight.delete(delivery);
          res.writeHead(200).end("ok");
        }, this.delayMs),
      );
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  eventIds(): Set<string> {
    return new Set(this.received.map((r) => r.eventId));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function check(results: { ok: boolean; what: string }[]): number {
  for (const r of results) console.log(`${r.ok ? "PASS" : "FAIL"}  ${r.what}`);
  return results.every((r) => r.ok) ? 0 : 1;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
