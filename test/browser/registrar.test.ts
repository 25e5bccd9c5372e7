// A registrar's day in the dashboard (Debian chromium, playwright-core, the real service on a
// fresh database): the dashboard opens where the organization's institutions are (the sandbox
// here), names instead of ids on every page, institutions and courses found by name and code,
// a course edited and its rules listed, the review queue decided with change notes. axe-core
// on every page, no console error (nor a /favicon.ico 404), a screenshot of each.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { buildDashboard } from "../../scripts/build-dashboard.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import {
  checkPage,
  expectNoPageProblems,
  expectNoVisibleIds,
  type ServedPage,
  servedPage,
  signInThroughLink,
} from "./browser.ts";

const SANTA_MONICA = "inst_122977";
const BERKELEY = "inst_110635";
const UCLA = "inst_110662";

describe("dashboard: a registrar's day", function () {
  this.timeout(120_000);
  let t: TestApp;
  let served: ServedPage;
  let origin: string;
  let page: Page;
  const course: Record<string, string> = {};
  const missing: string[] = [];
  const rule: Record<string, string> = {};

  const go = (path: string) => page.goto(`${origin}/dashboard${path}`);
  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });

  before(async function () {
    this.timeout(300_000);
    await buildDashboard();
    // acme stewards two institutions, in the sandbox only: its data is there, live is empty.
    t = await createTestApp({}, { acmeStewardsAll: false });
    await loadInstitutions(t.database.prisma, "sandbox");
    await loadInstitutions(t.database.prisma, "live");
    await t.app.context.services.stewardship.grantStewardship(t.organizationId, "sandbox", {
      institutionIds: [SANTA_MONICA, BERKELEY],
    });
    const key = bearer(t.keys.sandbox);
    const courses = await t.http
      .post("/api/v1/courses")
      .set(key)
      .send([
        { institutionId: SANTA_MONICA, code: "CHEM 11", title: "General Chemistry", credits: 5, level: "lower" },
        {
          institutionId: SANTA_MONICA,
          code: "CS 55",
          title: "Java Programming",
          credits: 4.5,
          creditUnit: "quarter",
          level: "lower",
        },
        { institutionId: BERKELEY, code: "CHEM 1A", title: "General Chemistry", credits: 3, level: "lower" },
        { institutionId: BERKELEY, code: "CS 61B", title: "Data Structures", credits: 4, level: "lower" },
      ])
      .expect(201);
    for (const item of courses.body.data) course[item.code] = item.id;
    const create = async (name: string, body: object, as = key) => {
      const created = await t.http.post("/api/v1/equivalencies").set(as).send(body).expect(201);
      rule[name] = created.body.data.id;
    };
    // Oldest first: chemistry, then Java; a rule UCLA decides is not acme's to review.
    await create("chem", {
      sourceCourseId: course["CHEM 11"],
      targetInstitutionId: BERKELEY,
      targetCourseId: course["CHEM 1A"],
    });
    await create("java", {
      sourceCourseId: course["CS 55"],
      targetInstitutionId: BERKELEY,
      targetCourseId: course["CS 61B"],
    });
    const ucla = await t.otherOrganization("ucla-office", "sandbox", "channel_b", { institutionIds: [UCLA] });
    await create(
      "ucla",
      { sourceCourseId: course["CS 55"], targetInstitutionId: UCLA, targetCode: "COM SCI 31" },
      bearer(ucla.key),
    );
    // The browser asks for some files by itself, unseen by the page's listeners (/favicon.ico
    // unless the page names an icon): the server tells every 404 outside the API.
    served = await servedPage(t, (server) =>
      server.on("request", (request, response) => {
        response.once("finish", () => {
          if (response.statusCode === 404 && !request.url?.startsWith("/api/")) missing.push(request.url ?? "");
        });
      }),
    );
    ({ origin, page } = served);
  });

  after(async () => {
    await served?.close();
    await t?.close();
  });

  // Every step leaves the page free of script errors, CSP violations and missing files.
  expectNoPageProblems(() => served);
  afterEach(() => expect(missing, "files the server did not have").to.deep.equal([]));

  it("opens a new user's dashboard in the sandbox, where the organization's institutions are, listed by name", async () => {
    await signInThroughLink(page, t, origin, { email: "registrar@acme.example", role: "contributor" });
    expect(await page.getByRole("radio", { name: "Sandbox" }).isChecked()).to.equal(true);
    // The icon is in the page, so the browser asks for no /favicon.ico.
    expect(await page.locator('link[rel="icon"]').getAttribute("href")).to.match(/^data:image\/svg\+xml,/);
    const stewardship = page.getByRole("region", { name: "Stewardship" });
    await stewardship.getByText("Santa Monica College").waitFor();
    await stewardship.getByText("University of California-Berkeley").waitFor();
    expect(await stewardship.textContent()).not.to.include("inst_");
    expect(await stewardship.getByText("Santa Monica College").getAttribute("title")).to.equal(SANTA_MONICA);
    await checkPage(page, "registrar-overview");
  });

  it("says where the data is when switched to an environment without it", async () => {
    await page.getByRole("radio", { name: "Live" }).check();
    const notice = page.getByRole("status").filter({ hasText: "its institutions are in Sandbox" });
    await notice.waitFor();
    await checkPage(page, "registrar-data-elsewhere");
    await notice.getByRole("button", { name: "Switch to Sandbox" }).click();
    await page.getByText("Sandbox data: changes here never reach live").waitFor();
    expect(await page.getByRole("radio", { name: "Sandbox" }).isChecked()).to.equal(true);
  });

  it("filters courses by an institution found by name, shows institutions by name, opens a course", async () => {
    await go("/courses");
    await heading("Courses").waitFor();
    await page.getByLabel("Institution", { exact: true }).fill("Santa Mon");
    await page.getByRole("button", { name: /^Santa Monica College/ }).click();
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: "CS 55", exact: true }).waitFor();
    await page.getByRole("link", { name: "CS 61B", exact: true }).waitFor({ state: "detached" });
    expect(new URL(page.url()).searchParams.get("institution")).to.equal(SANTA_MONICA);
    const row = page.getByRole("row", { name: /CS 55/ });
    expect(await row.textContent()).to.include("Santa Monica College");
    expect(await row.textContent()).not.to.include("inst_");
    await checkPage(page, "registrar-courses");
    await row.getByRole("link", { name: "CS 55" }).click();
    await heading("CS 55 — Java Programming").waitFor();
  });

  it("edits a course as a steward of its institution and lists the rules it is part of", async () => {
    const rules = page.getByRole("table", { name: "Rules this course is part of" });
    await rules.getByRole("link", { name: "CS 55 → CS 61B" }).waitFor();
    await rules.getByRole("cell", { name: "University of California-Los Angeles" }).waitFor();
    await page.locator("dl.facts").getByText("4.5 quarter units").waitFor();
    await page.getByRole("button", { name: "Edit course" }).click();
    // A quarter course's form says so, and saving it keeps it a quarter course (an upsert
    // without the unit would store semester).
    expect(await page.getByLabel("Credit unit").inputValue()).to.equal("quarter");
    await page.getByLabel("Title").fill("Java Programming I");
    await page.getByLabel("Credits").fill("4");
    await page.getByLabel("CIP 2020 code (optional)").fill("11.0201");
    await checkPage(page, "registrar-course-edit");
    await page.getByRole("button", { name: "Save course" }).click();
    await page.getByText("Saved: CS 55 is now at version 2.").waitFor();
    await heading("CS 55 — Java Programming I").waitFor();
    const stored = await t.http.get(`/api/v1/courses/${course["CS 55"]}`).set(bearer(t.keys.sandbox)).expect(200);
    expect(stored.body.data).to.include({
      title: "Java Programming I",
      credits: 4,
      creditUnit: "quarter",
      cipCode: "11.0201",
      version: 2,
    });
    await page.locator("dl.facts").getByText("4 quarter units").waitFor();
    await checkPage(page, "registrar-course");
  });

  it("does not overwrite a course changed by someone else since the form opened", async () => {
    await page.getByRole("button", { name: "Edit course" }).click();
    await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.sandbox))
      .send({ institutionId: SANTA_MONICA, code: "CS 55", title: "Java Programming I", credits: 4, level: "upper" })
      .expect(201);
    await page.getByLabel("Title").fill("Java I");
    await page.getByRole("button", { name: "Save course" }).click();
    await page.getByText(/Someone changed this course since you opened it \(now version 3\)/).waitFor();
    const stored = await t.http.get(`/api/v1/courses/${course["CS 55"]}`).set(bearer(t.keys.sandbox)).expect(200);
    expect(stored.body.data).to.include({ title: "Java Programming I", level: "upper", version: 3 });
  });

  it("filters equivalencies by a course found by code and a target institution found by name", async () => {
    await go("/equivalencies");
    await heading("Equivalencies").waitFor();
    const uclaRow = page.getByRole("row", { name: /University of California-Los Angeles/ });
    await uclaRow.waitFor();
    await page.getByLabel("Source course").fill("CS 55");
    await page.getByRole("button", { name: /^CS 55 — Java Programming I/ }).click();
    await page.getByLabel("Target institution").fill("Berkeley");
    await page.getByRole("button", { name: /^University of California-Berkeley/ }).click();
    await page.getByRole("button", { name: "Apply filters" }).click();
    await uclaRow.waitFor({ state: "detached" });
    expect(await page.getByRole("row").count()).to.equal(2); // the heading row and the Berkeley rule
    expect(await page.getByRole("row").last().textContent()).to.include("University of California-Berkeley");
    const query = new URL(page.url()).searchParams;
    expect([query.get("sourceCourse"), query.get("targetInstitution")]).to.deep.equal([course["CS 55"], BERKELEY]);
    await checkPage(page, "registrar-equivalencies");
  });

  it("creates a rule with the source course found by code and the target institution by name, then edits it", async () => {
    await go("/equivalencies");
    await page.getByRole("link", { name: "New rule" }).click();
    await heading("New rule").waitFor();
    await page.getByLabel("Source course").fill("CHEM 11");
    await page.getByRole("button", { name: /^CHEM 11 — General Chemistry/ }).click();
    await page.getByLabel("Target institution", { exact: true }).fill("Los Angeles");
    await page.getByRole("button", { name: /^University of California-Los Angeles/ }).click();
    await page.getByLabel("Target 1: or a code (when the course has no record)").fill("CHEM 14A");
    await page.getByRole("button", { name: "Create rule" }).click();
    // UCLA is not acme's to decide: refused, saying so, with the institution by name.
    const refusal = page.getByRole("alert");
    await refusal
      .getByText(/steward/i)
      .first()
      .waitFor();
    await refusal.getByText("University of California-Los Angeles").first().waitFor();
    await expectNoVisibleIds(refusal, "the refusal");
    await page.getByRole("button", { name: "Clear Target institution" }).click();
    await page.getByLabel("Target institution", { exact: true }).fill("Berkeley");
    await page.getByRole("button", { name: /^University of California-Berkeley/ }).click();
    await page.getByLabel("Target 1: or a code (when the course has no record)").fill("CHEM 1XX");
    await page.getByLabel("Decided by").fill("Berkeley Office of Undergraduate Admissions");
    await checkPage(page, "registrar-new-rule");
    await page.getByRole("button", { name: "Create rule" }).click();
    await heading("Equivalency: CHEM 11 → CHEM 1XX").waitFor();
    rule.elective = page.url().split("/").pop() ?? "";
    await page.getByRole("button", { name: "Edit rule" }).click();
    await page.getByLabel("Policy basis (optional)").fill("Articulation agreement 2025-26");
    await page.getByLabel("Change note").last().fill("Policy basis recorded");
    await page.getByRole("button", { name: "Save rule" }).click();
    await page.getByText("Rule saved (version 2).").waitFor();
    const stored = await t.http.get(`/api/v1/equivalencies/${rule.elective}`).set(bearer(t.keys.sandbox)).expect(200);
    expect(stored.body.data).to.include({
      targetInstitutionId: BERKELEY,
      targetCode: "CHEM 1XX",
      decidedBy: "Berkeley Office of Undergraduate Admissions",
      policyBasis: "Articulation agreement 2025-26",
      status: "pending",
      version: 2,
    });
  });

  it("reviews the pending rules of its institutions, oldest first: accepts one and marks one conflict, with notes", async () => {
    await go("/review");
    await heading("Review queue").waitFor();
    const rows = page.getByRole("row");
    await page.getByRole("link", { name: "CHEM 11 → CHEM 1A" }).waitFor();
    // Berkeley's rules, oldest first; UCLA's rule is not acme's to decide.
    expect((await rows.allTextContents()).slice(1).map((text) => text.split(" → ")[0])).to.deep.equal([
      "CHEM 11",
      "CS 55",
      "CHEM 11",
    ]);
    await expectNoVisibleIds(page.locator("main"), "the review queue");
    await checkPage(page, "registrar-review");
    await page.getByLabel("Change note for CHEM 11 → CHEM 1A").fill("Syllabi match; lab hours equal");
    await page.getByRole("button", { name: "Accept CHEM 11 → CHEM 1A" }).click();
    await page.getByText("CHEM 11 → CHEM 1A: accepted.").waitFor();
    await page.getByRole("link", { name: "CHEM 11 → CHEM 1A" }).waitFor({ state: "detached" });
    await page.getByLabel("Change note for CS 55 → CS 61B").fill("Two course sequences disagree");
    await page.getByRole("button", { name: "Mark conflict CS 55 → CS 61B" }).click();
    await page.getByText("CS 55 → CS 61B: now conflict.").waitFor();
    const conflict = page.getByRole("row", { name: /CS 55 → CS 61B/ });
    await conflict.getByText("conflict", { exact: true }).waitFor();
    await conflict.getByRole("button", { name: "Back to pending CS 55 → CS 61B" }).waitFor();
    const chem = await t.http.get(`/api/v1/equivalencies/${rule.chem}`).set(bearer(t.keys.sandbox)).expect(200);
    expect(chem.body.data).to.include({ status: "accepted", version: 2 });
  });

  it("refuses to decide a rule changed since the queue was read", async () => {
    await t.http
      .patch(`/api/v1/equivalencies/${rule.java}`)
      .set(bearer(t.keys.sandbox))
      .send({ status: "pending", note: "Reopened by the articulation officer" })
      .expect(200);
    await page.getByRole("button", { name: "Accept CS 55 → CS 61B" }).click();
    await page.getByText(/Changed by someone else since the queue was read \(now pending, version 3\)/).waitFor();
    const java = await t.http.get(`/api/v1/equivalencies/${rule.java}`).set(bearer(t.keys.sandbox)).expect(200);
    expect(java.body.data).to.include({ status: "pending", version: 3 });
  });

  it("shows a rule's history with names: courses, institutions, and who changed it by email or key name", async () => {
    await go(`/equivalencies/${rule.chem}`);
    await heading("Equivalency: CHEM 11 → CHEM 1A").waitFor();
    const facts = page.locator("dl.facts");
    await facts.getByText("Santa Monica College").waitFor();
    await facts.getByText("University of California-Berkeley").waitFor();
    await facts.getByRole("link", { name: "CHEM 1A — General Chemistry" }).waitFor();
    const versions = page.locator("ol.timeline > li");
    await versions.first().getByText("registrar@acme.example").waitFor();
    expect(await versions.first().locator("blockquote").textContent()).to.equal("Syllabi match; lab hours equal");
    await versions.last().getByText("sandbox test key").waitFor();
    await expectNoVisibleIds(page.locator("main"), "the rule's page");
    expect(await page.title()).to.equal("Equivalency: CHEM 11 → CHEM 1A · Dashboard");
    await checkPage(page, "registrar-equivalency");
  });
  it("creates a rule of two source courses with a minimum grade and a start date, reads it back, and is refused an ambiguous one with a link", async () => {
    const created = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.sandbox))
      .send([
        { institutionId: SANTA_MONICA, code: "CHEM 1A", title: "Chemistry Lecture", credits: 4, level: "lower" },
        { institutionId: SANTA_MONICA, code: "CHEM 1AL", title: "Chemistry Laboratory", credits: 1, level: "lower" },
        { institutionId: BERKELEY, code: "CHEM 4A", title: "Quantitative Chemistry", credits: 5, level: "lower" },
      ])
      .expect(201);
    for (const item of created.body.data) course[`${item.institutionId} ${item.code}`] = item.id;
    const fill = async (target: { course?: RegExp; code?: string }) => {
      await go("/equivalencies/new");
      await heading("New rule").waitFor();
      await page.getByLabel("Source course", { exact: true }).fill("CHEM 1A");
      await page.getByRole("button", { name: /^CHEM 1A — Chemistry Lecture/ }).click();
      await page.getByRole("button", { name: "Add a source course" }).click();
      await page.getByLabel("Source course 2 (also required)", { exact: true }).fill("CHEM 1AL");
      await page.getByRole("button", { name: /^CHEM 1AL — Chemistry Laboratory/ }).click();
      await page.getByLabel("Target institution", { exact: true }).fill("Berkeley");
      await page.getByRole("button", { name: /^University of California-Berkeley/ }).click();
      if (target.course) {
        await page.getByLabel("Target 1: course at the target institution", { exact: true }).fill("CHEM 4A");
        await page.getByRole("button", { name: target.course }).click();
      } else {
        await page.getByLabel("Kind").selectOption("elective");
        await page.getByLabel("Target 1: or a code (when the course has no record)").fill(target.code ?? "");
      }
      await page.getByLabel("Minimum grade").selectOption("C");
      await page.getByLabel("Effective from (optional)").fill("2024-08-15");
      await page.getByLabel("Status").selectOption("accepted");
    };
    await fill({ course: /^CHEM 4A — Quantitative Chemistry/ });
    await checkPage(page, "registrar-new-rule-model");
    await page.getByRole("button", { name: "Create rule" }).click();
    await heading("Equivalency: CHEM 1A + CHEM 1AL → CHEM 4A").waitFor();
    rule.chem4a = page.url().split("/").pop() ?? "";
    const facts = page.locator("dl.facts");
    await facts.getByText("Source courses (all required)").waitFor();
    await facts.getByRole("link", { name: /CHEM 1A — Chemistry Lecture/ }).waitFor();
    await facts.getByRole("link", { name: /CHEM 1AL — Chemistry Laboratory/ }).waitFor();
    await facts.getByRole("link", { name: /CHEM 4A — Quantitative Chemistry/ }).waitFor();
    await facts.getByText("C or better").waitFor();
    await facts.getByText("from 2024-08-15").waitFor();
    await checkPage(page, "registrar-rule-model");
    const stored = await t.http.get(`/api/v1/equivalencies/${rule.chem4a}`).set(bearer(t.keys.sandbox)).expect(200);
    expect(stored.body.data).to.deep.include({
      sourceCourseIds: [course[`${SANTA_MONICA} CHEM 1A`], course[`${SANTA_MONICA} CHEM 1AL`]],
      kind: "equivalent",
      minimumGrade: "C",
      effectiveFrom: "2024-08-15",
      effectiveUntil: null,
      priority: 0,
      status: "accepted",
    });
    expect(stored.body.data.targets.map((target: { courseId: string }) => target.courseId)).to.deep.equal([
      course[`${BERKELEY} CHEM 4A`],
    ]);
    // The same sources, dates and priority with another outcome: refused, naming the rule in force.
    await fill({ code: "CHEM 4XX" });
    await page.getByRole("button", { name: "Create rule" }).click();
    const alert = page.getByRole("alert");
    const conflicting = alert.getByRole("link", { name: "Open the conflicting rule CHEM 1A + CHEM 1AL → CHEM 4A" });
    await conflicting.waitFor();
    expect(await conflicting.getAttribute("href")).to.equal(`/dashboard/equivalencies/${rule.chem4a}`);
    // The problem's detail names the institution and the rule in force by name, not by id.
    await alert.getByText("University of California-Berkeley").first().waitFor();
    await expectNoVisibleIds(alert, "the refusal of an ambiguous rule");
    await conflicting.click();
    await heading("Equivalency: CHEM 1A + CHEM 1AL → CHEM 4A").waitFor();
  });
});
