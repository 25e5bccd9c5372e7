// `npm run clients:partners [-- options]`: the clients a partner generates with OpenAPI Generator
// (Java, Python, C#, Go, TypeScript), from the document the service serves, checked for silent
// mis-generation (scripts/partners/checks.ts). Writes dist/partners/<language>/ (ignored), the
// generator's log beside each, and dist/partners/report.json; exits 1 on any finding.
//
//   --server URL     a running server's origin (http://127.0.0.1:8080); without it, one is
//                    started on a free port with a scratch data directory, and stopped after
//   --document V     3.0 (default): /api/v1/openapi-3.0.json, the rendition partners use;
//                    3.1: /api/v1/openapi.json, to see what the generators make of it
//   --only L1,L2     some of java, python, csharp, go, typescript-fetch
//   --openapitools F the wrapper's configuration (default: openapitools.json)
//   --out DIR        instead of dist/partners
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { CHECKS, checkLog, checkModels, type Finding } from "./checks.ts";
import { ensureGenerator, GeneratorUnavailable, generatorSettings } from "./generator.ts";
import { LANGUAGES, type Language, RULES, readModels } from "./languages.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
let OUT = path.join(ROOT, "dist", "partners");
const DOCUMENTS = { "3.0": "/api/v1/openapi-3.0.json", "3.1": "/api/v1/openapi.json" } as const;

interface Server {
  origin: string;
  stop(): Promise<void>;
}

/** `npm start` on a free port with a scratch data directory, as a partner's test server. */
async function startServer(): Promise<Server> {
  // What `prestart` does: the server bundle holds the routes, so it must be the current one.
  const build = spawnSync("npm", ["run", "-s", "build"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
  const main = path.join(ROOT, "dist", "server", "main.js");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "partners-server-"));
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      SVC_DATA_DIR: dataDir,
      DATABASE_URL: "",
      SVC_LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const origin = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line) resolve(new URL(JSON.parse(line).url).origin);
    });
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)));
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  return { origin, stop };
}

function generate(jar: string, language: Language, document: string): Promise<{ log: string; code: number | null }> {
  const output = path.join(OUT, language);
  fs.rmSync(output, { recursive: true, force: true });
  const child = spawn(
    "java",
    ["-jar", jar, "generate", "-c", path.join(ROOT, "partners", `${language}.yaml`), "-i", document, "-o", output],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout.on("data", (chunk) => (log += chunk));
  child.stderr.on("data", (chunk) => (log += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ log, code })));
}

/** Runs `tasks` at most `limit` at a time (the machines have two cores). */
async function pool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function fetchText(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return response.text();
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      server: { type: "string" },
      document: { type: "string", default: "3.0" },
      only: { type: "string" },
      openapitools: { type: "string" },
      out: { type: "string" },
    },
  });
  if (values.out) OUT = path.resolve(values.out);
  const version = values.document as keyof typeof DOCUMENTS;
  if (!(version in DOCUMENTS)) throw new Error(`--document is 3.0 or 3.1, not ${values.document}`);
  const languages = (values.only?.split(",") ?? [...LANGUAGES]) as Language[];
  for (const language of languages)
    if (!LANGUAGES.includes(language)) throw new Error(`unknown language ${language}: ${LANGUAGES.join(", ")}`);

  const { jar } = ensureGenerator(
    generatorSettings(values.openapitools ? path.resolve(values.openapitools) : undefined),
  );
  const started = values.server ? null : await startServer();
  const origin = values.server ?? started!.origin;
  fs.mkdirSync(OUT, { recursive: true });
  let served: string;
  let contract: string;
  try {
    // The document exactly as served; the checks compare against the contract in its 3.0 spelling.
    served = await fetchText(`${origin}${DOCUMENTS[version]}`);
    contract = version === "3.0" ? served : await fetchText(`${origin}${DOCUMENTS["3.0"]}`);
  } finally {
    await started?.stop();
  }
  const documentFile = path.join(OUT, path.basename(DOCUMENTS[version]));
  fs.writeFileSync(documentFile, served);
  const expected = JSON.parse(contract);
  console.log(`Generating ${languages.join(", ")} from ${origin}${DOCUMENTS[version]} (${path.basename(jar, ".jar")})`);

  const started_at = Date.now();
  const results = await pool(languages, 2, async (language) => {
    const t0 = Date.now();
    const { log, code } = await generate(jar, language, documentFile);
    fs.writeFileSync(path.join(OUT, `${language}.log`), log);
    const models = readModels(language, path.join(OUT, language));
    const modelFindings = checkModels(expected, models, RULES[language]);
    const findings: Finding[] = [...checkLog(log, code, modelFindings.length === 0), ...modelFindings];
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    console.log(
      `${findings.length ? "FAIL" : "ok  "} ${language.padEnd(16)} ${String(models.models.size).padStart(3)} models, ${String(models.enumTypes.size).padStart(2)} enums, ${findings.length} findings (${seconds} s)`,
    );
    return { language, findings };
  });
  const report = Object.fromEntries(results.map(({ language, findings }) => [language, findings]));
  fs.writeFileSync(
    path.join(OUT, "report.json"),
    `${JSON.stringify({ document: DOCUMENTS[version], report }, null, 2)}\n`,
  );
  const failed = results.filter(({ findings }) => findings.length);
  for (const { language, findings } of failed) {
    console.log(`\n${language} (${path.relative(ROOT, path.join(OUT, `${language}.log`))}):`);
    for (const finding of findings) console.log(`  ${finding.check}: ${finding.where}: ${finding.detail}`);
  }
  if (failed.length) {
    const used = new Set(failed.flatMap(({ findings }) => findings.map((f) => f.check)));
    console.log("\nChecks (scripts/partners/checks.ts):");
    for (const check of used) console.log(`  ${check}: ${CHECKS[check]}`);
  }
  console.log(
    `\n${results.length - failed.length} passed, ${failed.length} failed: clients in ${path.relative(ROOT, OUT)}/ (${((Date.now() - started_at) / 1000).toFixed(0)} s)`,
  );
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof GeneratorUnavailable ? error.message : error instanceof Error ? error.stack : error}\n`,
    );
    process.exit(1);
  },
);
