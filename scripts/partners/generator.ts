// OpenAPI Generator, as the partners run it: the Java archive pinned in openapitools.json
// (`generator-cli.version`), kept in its `storageDir` (an ignored folder) and fetched from Maven
// Central at first use by the npm wrapper, @openapitools/openapi-generator-cli. What is missing
// (Java, the archive, the network) is said in one line: GeneratorUnavailable.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** OpenAPI Generator 7 runs on Java 11 or newer. */
const MINIMUM_JAVA = 11;

/** A path as a reader finds it: relative to the project when inside it. */
const shown = (file: string) => (file.startsWith(`${ROOT}${path.sep}`) ? path.relative(ROOT, file) : file);

/** Why the generator cannot run, in one line naming what is missing. */
export class GeneratorUnavailable extends Error {}

export interface GeneratorSettings {
  /** The wrapper's configuration file (openapitools.json). */
  configFile: string;
  version: string;
  /** Where the archive is kept: `<storage>/<version>.jar`, as the wrapper names it. */
  storage: string;
}

export function generatorSettings(configFile = path.join(ROOT, "openapitools.json")): GeneratorSettings {
  const config = JSON.parse(fs.readFileSync(configFile, "utf8")) as {
    "generator-cli"?: { version?: string; storageDir?: string };
  };
  const version = config["generator-cli"]?.version;
  const storageDir = config["generator-cli"]?.storageDir;
  if (!version || !storageDir)
    throw new GeneratorUnavailable(`${shown(configFile)} must pin generator-cli.version and generator-cli.storageDir.`);
  return { configFile, version, storage: path.resolve(path.dirname(configFile), storageDir) };
}

/** The major version of the `java` on PATH, or a one-line reason why there is none usable. */
function javaVersion(): number {
  const probe = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (probe.error)
    throw new GeneratorUnavailable(
      `OpenAPI Generator needs Java ${MINIMUM_JAVA} or newer, and there is no \`java\` on PATH (Debian: apt-get install openjdk-17-jre-headless).`,
    );
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${probe.stderr}${probe.stdout}`);
  const major = match ? Number(match[1] === "1" ? match[2] : match[1]) : 0;
  if (major < MINIMUM_JAVA)
    throw new GeneratorUnavailable(
      `OpenAPI Generator needs Java ${MINIMUM_JAVA} or newer; the \`java\` on PATH is ${match ? `version ${major}` : "of an unknown version"}.`,
    );
  return major;
}

/** The first line of the wrapper's output that says why a download failed. */
function downloadFailure(output: string): string {
  const line = output.split("\n").find((l) => /Download failed/i.test(l));
  return line
    ? line.replace(/^.*Download failed,?\s*(because of:\s*)?/i, "").replace(/^"|"$/g, "")
    : "no archive was written";
}

/**
 * The path of the generator's archive, after checking Java and fetching the archive through the
 * npm wrapper when it is not there yet. Throws GeneratorUnavailable with one line otherwise.
 */
export function ensureGenerator(settings = generatorSettings()): { jar: string; java: number } {
  const java = javaVersion();
  const jar = path.join(settings.storage, `${settings.version}.jar`);
  if (fs.existsSync(jar)) return { jar, java };
  const wrapper = path.join(ROOT, "node_modules", ".bin", "openapi-generator-cli");
  if (!fs.existsSync(wrapper))
    throw new GeneratorUnavailable(
      "The npm wrapper @openapitools/openapi-generator-cli is not installed: run `npm ci` (it is a devDependency).",
    );
  // `version` makes the wrapper download the pinned archive into storageDir, then print the version.
  const run = spawnSync(wrapper, ["version", "--openapitools", settings.configFile], {
    cwd: path.dirname(settings.configFile),
    encoding: "utf8",
    env: { ...process.env, PWD: path.dirname(settings.configFile) },
    timeout: 300_000,
  });
  if (!fs.existsSync(jar))
    throw new GeneratorUnavailable(
      `OpenAPI Generator ${settings.version} is not in ${shown(settings.storage)}/ and could not be downloaded from Maven Central (${downloadFailure(`${run.stdout}${run.stderr}`)}); offline, put org.openapitools:openapi-generator-cli:${settings.version}'s jar there as ${settings.version}.jar.`,
    );
  return { jar, java };
}

// `npx tsx scripts/partners/generator.ts [--openapitools FILE]`: fetch the archive if needed and
// print its path; exit 1 with one line when it cannot be had.
if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf("--openapitools");
  try {
    const { jar } = ensureGenerator(generatorSettings(at > 0 ? path.resolve(process.argv[at + 1]) : undefined));
    process.stdout.write(`${jar}\n`);
  } catch (error) {
    if (!(error instanceof GeneratorUnavailable)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
