// One headless Debian chromium for a browser test file, driven by playwright-core, plus the
// checks every page gets: axe-core (no serious or critical violation), no console error or
// CSP violation, and a screenshot under test-results/screenshots/; and the set-up the files share:
// the app served on a free port, a page of chromium on it, signed in through a one-time link.
import fs from "node:fs";
import type http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect } from "chai";
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { createServer } from "../../src/app/server.ts";
import type { TestApp } from "../helpers/app.ts";
import { signInLink } from "./sign-in-link.ts";

export const CHROMIUM_PATH = "/usr/bin/chromium";
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
];
export const SCREENSHOTS = path.resolve(import.meta.dirname, "../../test-results/screenshots");

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Launches chromium, or fails with what to install: the browser tests never skip. */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The browser tests need Debian's chromium at ${CHROMIUM_PATH}: run \`apt-get install -y chromium\` ` +
        "(.ci/run does it). No browser is ever downloaded.",
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[];
}

export async function openPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "en-US" });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]).catch(() => undefined);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // A failed request the page handles (401 for "no session", 404 "no connection", 412) is logged by chromium too.
    if (message.type() === "error" && !/Failed to load resource/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  // What the page's script fetches (the API, the sign-in routes) is its to handle; anything the
  // browser loads by itself must exist (it asks for /favicon.ico unless the page names an icon).
  page.on("response", (response) => {
    const { pathname } = new URL(response.url());
    const fetched = ["fetch", "xhr"].includes(response.request().resourceType());
    if (response.status() === 404 && !fetched) problems.push(`404: ${pathname}`);
  });
  page.on("dialog", (dialog) => void dialog.accept());
  return { context, page, problems };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core, injected through the DevTools protocol (the page's CSP allows no inline script). */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  if (!(await page.evaluate('"axe" in window'))) await page.evaluate(`${axeSource}\n;0`);
  const violations = (await page.evaluate(
    'axe.run(document, { resultTypes: ["violations"] }).then((result) => result.violations)',
  )) as AxeViolation[];
  const serious = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious, `axe on the ${name} page`).to.deep.equal([]);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Fails each passed test of the file after which the page saw a console error, a CSP violation or a 404. */
export function expectNoPageProblems(watched: () => WatchedPage | undefined): void {
  afterEach(function () {
    const current = watched();
    if (this.currentTest?.state === "passed" && current)
      expect(current.problems, "console and page errors").to.deep.equal([]);
  });
}

/** A record id as it begins: every prefix of src/kernel/ids.ts, and institutions' `inst_`. */
export const RECORD_ID = /\b(?:inst|org|key|oac|crs|eqv?|evt|wh|dlv|ds|req|usr|ses|aud|sso)_[0-9A-Za-z]{4,}/;

/**
 * What a person meets of the element holds no record id: its rendered text, screen-reader text
 * included (innerText; attributes such as a title, and closed <details>, are not read).
 */
export async function expectNoVisibleIds(element: Locator, what: string): Promise<void> {
  // biome-ignore lint/performance/useDomNodeTextContent: a locator's rendered text is the point: textContent holds closed <details> and hidden parts.
  const text = await element.innerText();
  expect(text, `${what}: ${text}`).not.to.match(RECORD_ID);
}

/** The page's checks: accessible, then photographed. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name);
  await screenshot(page, name);
}

/** Listens on a free port of 127.0.0.1; answers the server's origin. */
export async function listenOnFreePort(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A test app served over HTTP, with one chromium and one watched page for the file. */
export interface ServedPage extends WatchedPage {
  server: http.Server;
  origin: string;
  browser: Browser;
  /** Closes the browser, then the server (the app is the caller's to close). */
  close(): Promise<void>;
}

/**
 * Serves the app on a free port and opens a page of a new chromium. `prepare` sees the server
 * before it listens (to add request listeners).
 */
export async function servedPage(t: TestApp, prepare?: (server: http.Server) => void): Promise<ServedPage> {
  const server = createServer(t.app.koa);
  prepare?.(server);
  const origin = await listenOnFreePort(server);
  const browser = await launchBrowser();
  const watched = await openPage(browser);
  return {
    ...watched,
    server,
    origin,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type Invite = Parameters<typeof signInLink>[2];

/** Signs in with a one-time link as `npm run cli -- users invite` prints it, and waits for the Overview. */
export async function signInThroughLink(page: Page, t: TestApp, origin: string, invite: Invite): Promise<void> {
  await page.goto(await signInLink(t, origin, invite));
  // The link opens a page whose button uses it (a POST), so a link preview cannot spend it.
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
}

/** servedPage, signed in as the invited person. */
export async function signedInPage(t: TestApp, invite: Invite): Promise<ServedPage> {
  const served = await servedPage(t);
  try {
    await signInThroughLink(served.page, t, served.origin, invite);
  } catch (error) {
    await served.close();
    throw error;
  }
  return served;
}
