// Summarises a V8 CPU profile (`node --cpu-prof`, or BENCH_SERVER_NODE_OPTIONS="--cpu-prof"
// for the benchmarks' server process): where the samples fell, by package or
// project folder and by function, as self time (the function itself) and
// total time (the function and what it called). docs/benchmarks.md quotes
// these tables.
//
//   npx tsx scripts/bench/profile-summary.ts PROFILE.cpuprofile [--top 25]
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = path.resolve(import.meta.dirname, "../..");

/** "koa", "@prisma/client", "src/http", "(garbage collector)" … */
export function placeOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const file = url.replace(/^file:\/\//, "");
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (inModules) return inModules[1];
  if (file.startsWith("node:")) return `node:${file.slice(5).split("/")[0]}`;
  if (file.startsWith(ROOT)) return path.dirname(path.relative(ROOT, file));
  return file;
}

export function summarise(profile: Profile, top: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfMicros.values()].reduce((sum, us) => sum + us, 0);

  const selfByPlace = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const totalByFunction = new Map<string, number>();
  for (const [id, us] of selfMicros) {
    const frame = byId.get(id)!.callFrame;
    const place = placeOf(frame.url, frame.functionName);
    selfByPlace.set(place, (selfByPlace.get(place) ?? 0) + us);
    const name = `${frame.functionName || "(anonymous)"} ${place}:${frame.lineNumber + 1}`;
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + us);
    // Total time: every distinct function on the sample's stack, once.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const f = byId.get(at)!.callFrame;
      const key = `${f.functionName || "(anonymous)"} ${placeOf(f.url, f.functionName)}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      totalByFunction.set(key, (totalByFunction.get(key) ?? 0) + us);
    }
  }
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / total }));
  return {
    totalMs: total / 1000,
    byPlace: rows(selfByPlace),
    selfByFunction: rows(selfByFunction),
    totalByFunction: rows(totalByFunction),
  };
}

/** CPU milliseconds by package or folder, idle time left out: what one run cost where. */
export function cpuByPlace(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const places = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const place = placeOf(frame.url, frame.functionName);
    if (place === "(idle)") return;
    places.set(place, (places.get(place) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return places;
}

export function readProfile(file: string): Profile {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
}

function main() {
  const { values, positionals } = parseArgs({
    options: { top: { type: "string", default: "25" } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new Error("usage: profile-summary.ts PROFILE.cpuprofile [--top 25]");
  const profile = readProfile(positionals[0]);
  const summary = summarise(profile, Number(values.top));
  const table = (title: string, rows: { name: string; ms: number; share: number }[]) => {
    console.log(`\n| ${title} | ms | share |\n|---|---|---|`);
    for (const row of rows) console.log(`| ${row.name} | ${row.ms.toFixed(0)} | ${(row.share * 100).toFixed(1)} % |`);
  };
  console.log(`${positionals[0]}: ${summary.totalMs.toFixed(0)} ms of samples`);
  table("self time by package or folder", summary.byPlace);
  table("self time by function", summary.selfByFunction);
  table("total time by function (itself and its callees)", summary.totalByFunction);
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) main();
