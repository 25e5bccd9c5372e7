// The dashboard in a real browser (Debian chromium, playwright-core) against the real service
// on a fresh database: sign-in with a one-time link, every page's main flow, CSRF, keyboard
// use, axe-core on every page, a screenshot of every page. One browser and one page for the
// whole file; the steps run in order and build on each other.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { buildDashboard } from "../../scripts/build-dashboard.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { Dispatcher } from "../../src/webhooks/dispatcher.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { Receiver } from "../helpers/receiver.ts";
import {
  checkPage,
  expectNoPageProblems,
  expectNoVisibleIds,
  openPage,
  type ServedPage,
  servedPage,
  signInThroughLink,
} from "./browser.ts";

describe("dashboard in the browser", function () {
  this.timeout(120_000);
  let t: TestApp;
  let served: ServedPage;
  let origin: string;
  let page: Page;
  let receiver: Receiver;
  let equivalencyId: string;
  let dispatcher: Dispatcher;
  const received = (path: string) => receiver.requests.filter((request) => request.path === path);

  const go = async (path: string) => {
    await page.goto(`${origin}/dashboard${path}`);
  };
  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const nav = (name: string) =>
    page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true });

  before(async function () {
    // A fresh migrated database can take long on a loaded machine; the steps themselves stay short.
    this.timeout(300_000);
    await buildDashboard();
    t = await createTestApp({ SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
    await loadInstitutions(t.database.prisma, "live");
    // Like npm start: the server runs the webhook dispatcher and wakes it after each write.
    dispatcher = new Dispatcher({
      deliveries: t.app.context.repositories.deliveries,
      settings: t.config.webhooks,
      log: createLogger("silent"),
      secrets: t.secrets,
      pollIntervalMs: 50,
    });
    dispatcher.start();
    served = await servedPage(t, (server) =>
      server.on("request", (request, response) => {
        if (request.method !== "GET") response.once("finish", () => dispatcher.wake());
      }),
    );
    ({ origin, page } = served);
    receiver = await Receiver.start();
    // Records to browse: two courses and an equivalency between them, made with an API key.
    const courses = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.live))
      .send([
        { institutionId: "inst_122977", code: "CS 55", title: "Java Programming", credits: 3, level: "lower" },
        { institutionId: "inst_110635", code: "CS 61B", title: "Data Structures", credits: 4, level: "lower" },
      ])
      .expect(201);
    const [source, target] = courses.body.data;
    const created = await t.http
      .post("/api/v1/equivalencies")
      .set(bearer(t.keys.live))
      .send({ sourceCourseId: source.id, targetInstitutionId: "inst_110635", targetCourseId: target.id })
      .expect(201);
    equivalencyId = created.body.data.id;
  });

  after(async () => {
    await served?.close();
    await dispatcher?.stop();
    await receiver?.close();
    await t?.close();
  });

  // Every step leaves the page free of script errors, CSP violations and missing files.
  expectNoPageProblems(() => served);

  it("shows the sign-in page without a session, and says to ask an admin when the domain has no connection", async () => {
    await go("/");
    await heading("Sign in to the dashboard").waitFor();
    await checkPage(page, "sign-in");
    await page.getByLabel("Email address").fill("someone@no-connection.example");
    await page.getByRole("button", { name: "Continue" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).to.match(/sign-in link/i);
  });

  it("signs in with a one-time link from the command line and lands on the overview", async () => {
    await signInThroughLink(page, t, origin, { email: "registrar@acme.example", role: "admin" });
    expect(page.url()).to.equal(`${origin}/dashboard/`);
    await page.getByText("Your organization stewards every institution").waitFor();
    await checkPage(page, "overview");
  });

  it("refuses a state-changing dashboard request without the CSRF token", async () => {
    // A string, so that the test's compiler adds nothing the page lacks.
    const answers = (await page.evaluate(`(async () => {
      const session = await (await fetch("/dashboard/auth/session")).json();
      const post = (headers) =>
        fetch("/dashboard/auth/token", {
          method: "POST",
          headers: { "Content-Type": "application/json", ...headers },
          body: JSON.stringify({ environment: "live" }),
        }).then((r) => r.status);
      const signOut = await fetch("/dashboard/auth/sign-out", { method: "POST" }).then((r) => r.status);
      return {
        without: await post({}),
        wrong: await post({ "X-CSRF-Token": "not-the-token" }),
        with: await post({ "X-CSRF-Token": session.csrfToken }),
        signOut,
      };
    })()`)) as Record<string, number>;
    expect(answers.without).to.equal(403);
    expect(answers.wrong).to.equal(403);
    expect(answers.signOut).to.equal(403);
    expect(answers.with).to.equal(200);
  });

  it("moves by keyboard: the skip link, then a navigation link followed with Enter", async () => {
    await go("/");
    await heading("Overview").waitFor();
    // The skip link comes first in the tab order, before the environment switch; it moves to the content.
    await page.getByRole("radio", { name: "Live" }).focus();
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).to.equal("Skip to content");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${origin}/dashboard/#main`, { timeout: 10_000 });
    await nav("API keys").focus();
    await page.keyboard.press("Enter");
    await heading("API keys").waitFor();
    // The new page's heading takes the focus, so a screen reader announces it. The app moves it in
    // an effect, after the heading is painted: wait for that state (a timeout fails the test).
    await page.waitForFunction("document.activeElement?.tagName === 'H1'", undefined, { timeout: 10_000 });
    expect(await page.evaluate("document.activeElement?.textContent")).to.equal("API keys");
  });

  it("creates an API key, shows it once with a copy button, lists its prefix and last use, revokes it", async () => {
    await go("/keys");
    await heading("API keys").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Registrar sync");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = page.getByRole("region", { name: "New API key" });
    await secret.waitFor();
    const key = await secret.getByRole("textbox").inputValue();
    expect(key).to.match(/^svc_live_/);
    await secret.getByRole("button", { name: "Copy" }).click();
    await secret.getByRole("button", { name: "Copied" }).waitFor();
    await t.http.get("/api/v1/organizations/me").set(bearer(key)).expect(200);
    await checkPage(page, "keys");
    await secret.getByRole("button", { name: "Done" }).click();
    await page.reload();
    const row = page.getByRole("row", { name: /Registrar sync/ });
    await row.waitFor();
    expect(await row.textContent()).to.include(key.slice(0, 12));
    await row.getByRole("button", { name: /Revoke/ }).click();
    await row.getByText("revoked").waitFor();
    await t.http.get("/api/v1/organizations/me").set(bearer(key)).expect(401);
  });

  it("creates an OAuth client (secret once) and revokes it", async () => {
    await go("/oauth-clients");
    await heading("OAuth clients").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Nightly export");
    await page.getByRole("button", { name: "Create client" }).click();
    const secret = page.getByRole("region", { name: "Client secret" });
    await secret.waitFor();
    expect(await secret.getByRole("textbox").inputValue()).to.have.length.greaterThan(20);
    await checkPage(page, "oauth-clients");
    const row = page.getByRole("row", { name: /Nightly export/ });
    await row.getByRole("button", { name: /Revoke/ }).click();
    await row.getByText("revoked").waitFor();
  });

  it("registers a webhook (secret once), sends a test event, shows the delivery and re-sends it", async () => {
    await go("/webhooks");
    await heading("Webhooks").waitFor();
    await page.getByLabel("URL").fill(receiver.url("/hooks/dashboard"));
    await page.getByRole("button", { name: "Register endpoint" }).click();
    const secret = page.getByRole("region", { name: "Signing secret" });
    await secret.waitFor();
    expect(await secret.getByRole("textbox").inputValue()).to.match(/^whsec_/);
    await checkPage(page, "webhooks");
    await page.getByRole("link", { name: "Open the new endpoint" }).click();
    await heading(receiver.url("/hooks/dashboard")).waitFor();
    await page.getByText("No deliveries").waitFor();

    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByText(/Test event sent: succeeded, response 2\d\d/).waitFor();
    expect(received("/hooks/dashboard")).to.have.length(1);
    const delivery = page.locator("li.delivery").first();
    await delivery.locator("summary").click();
    await delivery.getByText("Signature header").waitFor();
    expect(await delivery.textContent()).to.match(/t=\d+,v1=[0-9a-f]{64}/);
    expect(await delivery.locator("pre.payload").textContent()).to.include('"test": true');
    // The delivery and its event by copy buttons, their ids on hover; the payload alone shows what was sent.
    const copyDelivery = delivery.getByRole("button", { name: "Copy id the delivery id" });
    expect(await copyDelivery.getAttribute("title")).to.match(/^dlv_/);
    expect(await delivery.getByRole("button", { name: "Copy id the event id" }).getAttribute("title")).to.match(
      /^evt_/,
    );
    await expectNoVisibleIds(delivery.locator("summary"), "a delivery's summary");
    await expectNoVisibleIds(delivery.locator("dl.facts"), "a delivery's facts");
    await copyDelivery.click();
    await delivery.getByRole("button", { name: "Copied the delivery id" }).waitFor();
    await checkPage(page, "webhook-deliveries");

    await delivery.getByRole("button", { name: "Re-send this delivery" }).click();
    await page.getByText(/Re-send queued as attempt 2/).waitFor();
    await receiver.waitFor(() => received("/hooks/dashboard").length === 2, 10_000, "the re-sent delivery");
    expect(received("/hooks/dashboard")[1].body).to.equal(received("/hooks/dashboard")[0].body);
    await page.getByRole("button", { name: "Refresh" }).click();
    await page.locator("li.delivery summary", { hasText: /succeeded .*attempt 2/ }).waitFor();
  });

  it("edits the subscriptions, rotates the secret and re-sends every failed delivery since a time", async () => {
    await page.getByLabel("equivalency.updated", { exact: true }).uncheck();
    await page.getByLabel("dataset.published", { exact: true }).check();
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Endpoint saved.").waitFor();
    const hookId = page.url().split("/").pop()!;
    const hook = await t.http.get(`/api/v1/webhooks/${hookId}`).set(bearer(t.keys.live)).expect(200);
    expect(hook.body.data.events).to.deep.equal(["equivalency.created", "dataset.published"]);

    await page.getByRole("button", { name: "Rotate the secret" }).click();
    const secret = page.getByRole("region", { name: "New signing secret" });
    await secret.waitFor();
    expect(await secret.getByRole("textbox").inputValue()).to.match(/^whsec_/);

    await page.getByRole("button", { name: "Re-send failed" }).click();
    await page.getByText(/failed deliver(y|ies) queued to be re-sent/).waitFor();
  });

  it("browses equivalencies with filters and reads one's history as a timeline", async () => {
    await go("/equivalencies");
    await heading("Equivalencies").waitFor();
    await page.getByRole("link", { name: /^CS 55 → CS 61B$/ }).waitFor();
    await page.getByLabel("Status").selectOption("accepted");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByText("No equivalency matches these filters.").waitFor();
    await checkPage(page, "equivalencies-empty");
    await page.getByLabel("Status").selectOption("pending");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByRole("link", { name: /^CS 55 → CS 61B$/ }).click();
    await heading("Equivalency: CS 55 → CS 61B").waitFor();
    await page.getByRole("heading", { name: "Version 1" }).waitFor();
    expect(await page.title()).to.equal("Equivalency: CS 55 → CS 61B · Dashboard");
  });

  it("changes the status with a change note, shown in the timeline side by side", async () => {
    await page.getByLabel("New status").selectOption("accepted");
    await page.getByLabel("Change note").fill("Articulation officer reviewed the syllabi");
    await page.getByRole("button", { name: "Change status" }).click();
    await page.getByText("Status changed to accepted.").waitFor();
    const version2 = page.locator("ol.timeline > li").first();
    await version2.getByRole("heading", { name: /Version 2/ }).waitFor();
    expect(await version2.locator("blockquote").textContent()).to.equal("Articulation officer reviewed the syllabi");
    const statusRow = version2.getByRole("row", { name: /^status/ });
    expect(await statusRow.locator("td.before").textContent()).to.equal("pending");
    expect(await statusRow.locator("td.after").textContent()).to.equal("accepted");
    expect(await version2.textContent()).to.match(/ · by \S+/);
    await checkPage(page, "equivalency-history");
  });

  it("shows a clear conflict message when someone else changed the equivalency meanwhile (412)", async () => {
    // Another credential changes it behind the page's back.
    await t.http
      .patch(`/api/v1/equivalencies/${equivalencyId}`)
      .set(bearer(t.keys.live))
      .send({ status: "conflict", note: "Changed elsewhere" })
      .expect(200);
    await page.getByLabel("New status").selectOption("conflict");
    await page.getByRole("button", { name: "Change status" }).click();
    const conflict = page.locator(".conflict[role=alert]");
    await conflict.waitFor();
    expect(await conflict.textContent()).to.match(/Someone changed this equivalency after you opened it/);
    await checkPage(page, "equivalency-conflict");
    await conflict.getByRole("button", { name: "Reload" }).click();
    await page.getByRole("heading", { name: /Version 3/ }).waitFor();
    await page.getByText("Changed elsewhere").waitFor();
  });

  it("browses and searches institutions and courses", async () => {
    await go("/institutions");
    await heading("Institutions").waitFor();
    await page.getByLabel("Name contains").fill("Santa Monica");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("cell", { name: "University of California-Berkeley" }).waitFor({ state: "detached" });
    await page.getByRole("cell", { name: "Santa Monica College" }).waitFor();
    await checkPage(page, "institutions");
    await go("/courses");
    await heading("Courses").waitFor();
    await page.getByLabel("Code or title contains").fill("Data Structures");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("cell", { name: "CS 61B" }).waitFor();
    await checkPage(page, "courses");
  });

  it("publishes a dataset and reads its row-level issues", async () => {
    await go("/datasets");
    await heading("Datasets").waitFor();
    await page.getByText("No dataset published yet").waitFor();
    await page.getByLabel("Label").fill("Fall 2026");
    await page.getByLabel("Expected record count (optional)").fill("5");
    await page.getByRole("button", { name: "Publish" }).click();
    await heading(/Dataset 1: Fall 2026/).waitFor();
    await page.getByRole("heading", { name: "Row-level issues" }).waitFor();
    // The expected count (5) differs from the snapshot (1): an issue, not a failure.
    await page
      .getByRole("cell", { name: /record_count_mismatch|recordCount/i })
      .first()
      .waitFor();
    // An issue of a rule names the rule by its courses (CS 55 has no CIP code), linked to it.
    const issues = page.getByRole("table", { name: "Issues" });
    const cip = issues.getByRole("row", { name: /missing_cip_code/ });
    await cip.getByRole("link", { name: "CS 55 → CS 61B" }).waitFor();
    expect(await cip.getByRole("link", { name: "CS 55 → CS 61B" }).getAttribute("href")).to.equal(
      `/dashboard/equivalencies/${equivalencyId}`,
    );
    await expectNoVisibleIds(issues, "the dataset's issues");
    await checkPage(page, "dataset");
  });

  it("lists members, invites one (a sign-in link), changes the role and disables, shows the stewardship", async () => {
    await go("/members");
    await heading("Members").waitFor();
    await page.getByRole("cell", { name: "registrar@acme.example", exact: true }).waitFor();
    await page.getByLabel("Email").fill("analyst@acme.example");
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Invite" }).click();
    const link = page.getByRole("region", { name: /Sign-in link for analyst@acme.example/ });
    await link.waitFor();
    expect(await link.getByRole("textbox").inputValue()).to.include("/dashboard/auth/link?token=");
    const row = page.getByRole("row", { name: /analyst@acme\.example/ });
    await row.waitFor();
    await row.getByLabel("Role of analyst@acme.example").selectOption("contributor");
    await row.getByRole("button", { name: /Disable/ }).click();
    await row.getByText("disabled").waitFor();
    expect(await row.getByLabel("Role of analyst@acme.example").inputValue()).to.equal("contributor");
    await page.getByText("Every institution of this environment.").waitFor();
    await checkPage(page, "members");
  });

  it("pages through the audit log of every change made above", async () => {
    await go("/audit");
    await heading("Audit log").waitFor();
    // Operations in words (the operationId on hover), records by name, and no id on the page.
    await page.getByRole("cell", { name: "Create an API key" }).first().waitFor();
    await page.getByRole("cell", { name: "Update an equivalency" }).first().waitFor();
    const record = (name: string) => page.getByRole("table").getByRole("cell", { name, exact: true }).first();
    await record("API key Registrar sync").waitFor();
    await record("OAuth client Nightly export").waitFor();
    await record(`webhook endpoint ${receiver.url("/hooks/dashboard")}`).waitFor();
    await record("member analyst@acme.example").waitFor();
    await record("Dataset 1: Fall 2026").waitFor();
    await record("CS 55 → CS 61B").waitFor();
    await expectNoVisibleIds(page.locator("main table"), "the audit log");
    const width = (await page.evaluate("document.documentElement.scrollWidth")) as number;
    expect(width, "the audit log fits 1,280 px").to.be.at.most(1280);
    await checkPage(page, "audit");
    await page.getByLabel("What").selectOption({ label: "Register a webhook endpoint" });
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByRole("cell", { name: "Create an API key" }).first().waitFor({ state: "detached" });
    await page.getByRole("cell", { name: "Register a webhook endpoint" }).first().waitFor();
  });

  it("shows the single sign-on connections read-only", async () => {
    await go("/sso");
    await heading("Single sign-on").waitFor();
    await page.getByText(/No connection/).waitFor();
    await checkPage(page, "sso");
  });

  it("switches to the sandbox like a test mode: its own keys, and back", async () => {
    await go("/keys");
    await heading("API keys").waitFor();
    await page.getByRole("radio", { name: "Sandbox" }).check();
    await page.getByText("Sandbox data: changes here never reach live").waitFor();
    const rows = page.getByRole("row");
    await page.getByRole("row", { name: /sandbox test key/ }).waitFor();
    expect(await rows.filter({ hasText: "live test key" }).count()).to.equal(0);
    await checkPage(page, "keys-sandbox");
    await page.getByRole("radio", { name: "Live" }).check();
    await page
      .getByRole("row", { name: /live test key/ })
      .first()
      .waitFor();
  });

  it("shows a viewer only what a viewer may do: no admin pages, no status change", async () => {
    const viewer = await openPage(served.browser);
    try {
      await signInThroughLink(viewer.page, t, origin, { email: "reader@acme.example", role: "viewer" });
      const links = viewer.page.getByRole("navigation", { name: "Dashboard" }).getByRole("link");
      expect(await links.allTextContents()).to.deep.equal([
        "Overview",
        "Equivalencies",
        "Courses",
        "Institutions",
        "Evaluate",
        "Requested rules",
        "Datasets",
      ]);
      await viewer.page.goto(`${origin}/dashboard/equivalencies/${equivalencyId}`);
      await viewer.page.getByRole("heading", { name: /Version 1/ }).waitFor();
      expect(await viewer.page.getByRole("button", { name: "Change status" }).count()).to.equal(0);
      await viewer.page.goto(`${origin}/dashboard/keys`);
      await viewer.page.getByRole("heading", { level: 1, name: "Not found" }).waitFor();
      expect(viewer.problems).to.deep.equal([]);
    } finally {
      await viewer.context.close();
    }
  });

  it("shows a not-found page for an unknown address, and signs out", async () => {
    await go("/no-such-page");
    await heading("Not found").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await heading("Sign in to the dashboard").waitFor();
    const status = await page.evaluate('fetch("/dashboard/auth/session").then((r) => r.status)');
    expect(status).to.equal(401);
  });
});
