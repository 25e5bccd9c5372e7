// Time to interactive of every dashboard page on localhost, in headless Debian chromium
// (playwright-core), beside a baseline measured in the same run: a static page with one
// heading served by node:http, loaded the same way. "Interactive" is the moment the page's
// heading is rendered and no loading indicator is left (the page's data has arrived),
// measured from navigation start by the page's own clock (performance.now(), polled every 5 ms). Each figure is the median of
// --runs loads (default 5) with a warm browser cache, as a person moving between pages sees it;
// the first, cold load of the app is reported on its own. Goal: every page under 1 s.
//
//   npm run bench:dashboard [-- --runs 5]
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { buildDashboard } from "../build-dashboard.ts";
import { createServer } from "../../src/app/server.ts";
import { bearer, createTestApp } from "../../test/helpers/app.ts";
import { loadInstitutions } from "../../test/helpers/fixtures.ts";
import { launchBrowser } from "../../test/browser/browser.ts";
import { fixed, machine, printTable } from "./harness.ts";

const GOAL_MS = 1000;
const PAGES = [
  "/",
  "/equivalencies",
  "/courses",
  "/institutions",
  "/datasets",
  "/keys",
  "/oauth-clients",
  "/webhooks",
  "/members",
  "/audit",
  "/sso",
];
/**
 * Runs in the page, polled every 5 ms: the page's own clock when it became interactive, so the
 * round trips of the driver are not counted (a function, not a string: the CSP forbids eval).
 */
const READY = () => {
  const { document, performance } = globalThis as unknown as {
    document: { querySelector(selector: string): { textContent: string | null } | null };
    performance: { now(): number };
  };
  const heading = document.querySelector("h1");
  return heading?.textContent && !document.querySelector(".loading") ? performance.now() : false;
};

async function whenReady(page: Page): Promise<number> {
  const handle = await page.waitForFunction(READY, undefined, { polling: 5, timeout: 30_000 });
  return (await handle.jsonValue()) as number;
}

async function timeToInteractive(page: Page, url: string): Promise<number> {
  await page.goto(url);
  return whenReady(page);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
  const runs = Math.max(1, Number(values.runs));
  await buildDashboard();
  const t = await createTestApp();
  await loadInstitutions(t.database.prisma, "live");
  await t.http
    .post("/api/v1/courses")
    .set(bearer(t.keys.live))
    .send({ institutionId: "inst_122977", code: "CS 55", title: "Java Programming", credits: 3, level: "lower" })
    .expect(201);
  const server = createServer(t.app.koa);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const baseline = http.createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end('<!doctype html><html lang="en"><title>Baseline</title><h1>Baseline</h1></html>');
  });
  await new Promise<void>((resolve) => baseline.listen(0, "127.0.0.1", resolve));
  const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/`;
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext()).newPage();
    const { signInUrl } = await t.app.context.services.users.inviteUser({
      organizationSlug: "acme",
      email: "bench@acme.example",
      role: "admin",
    });
    const link = new URL(signInUrl);
    const cold = await (async () => {
      await page.goto(`${origin}${link.pathname}${link.search}`);
      // From the link's navigation: the redirect, the session, the token and the first page.
      return whenReady(page);
    })();
    const baselineTimes: number[] = [];
    for (let i = 0; i < runs + 1; i++) baselineTimes.push(await timeToInteractive(page, baselineUrl));
    const base = median(baselineTimes.slice(1));
    const rows: (string | number)[][] = [];
    let worst = 0;
    for (const path of PAGES) {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push(await timeToInteractive(page, `${origin}/dashboard${path}`));
      const value = median(times);
      worst = Math.max(worst, value);
      rows.push([`/dashboard${path}`, fixed(value), fixed(base), fixed(value / base, 1)]);
    }
    console.log(`Dashboard time to interactive, median of ${runs} warm loads (${machine()})`);
    console.log(`First load after the sign-in link (cold cache, redirect included): ${fixed(cold)} ms\n`);
    printTable(["page", "time to interactive (ms)", "baseline: static page (ms)", "ratio"], rows);
    console.log(`\nSlowest page: ${fixed(worst)} ms; goal < ${GOAL_MS} ms: ${worst < GOAL_MS ? "met" : "NOT met"}`);
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
    await new Promise((resolve) => baseline.close(resolve));
    await t.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
