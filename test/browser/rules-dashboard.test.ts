// A steward's rule work in the dashboard (Debian chromium, playwright-core, the real service on a
// fresh database): a CSV file of rules checked by a dry run and then imported, its counts and row
// issues read in a table; a waiting rule rejected from the review queue after a confirmation
// (recorded as accepted, "does not transfer"); a rule edited field by field through PATCH with
// If-Match, and an edit that would make it ambiguous refused with a link to the rule in force.
// axe-core on every page, no console error, a screenshot of each.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { buildDashboard } from "../../scripts/build-dashboard.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { checkPage, expectNoPageProblems, expectNoVisibleIds, type ServedPage, signedInPage } from "./browser.ts";

const SANTA_MONICA = "inst_122977";
const BERKELEY = "inst_110635";

describe("dashboard: importing, rejecting and editing rules", function () {
  this.timeout(120_000);
  let t: TestApp;
  let served: ServedPage;
  let origin: string;
  let page: Page;
  const course: Record<string, string> = {};
  const rule: Record<string, string> = {};

  const go = (path: string) => page.goto(`${origin}/dashboard${path}`);
  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const stored = async (id: string) =>
    (await t.http.get(`/api/v1/equivalencies/${id}`).set(bearer(t.keys.live)).expect(200)).body.data;

  before(async function () {
    this.timeout(300_000);
    await buildDashboard();
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const key = bearer(t.keys.live);
    const courses = await t.http
      .post("/api/v1/courses")
      .set(key)
      .send([
        { institutionId: SANTA_MONICA, code: "CHEM 11", title: "General Chemistry", credits: 5, level: "lower" },
        { institutionId: SANTA_MONICA, code: "MATH 7", title: "Calculus 1", credits: 5, level: "lower" },
        { institutionId: SANTA_MONICA, code: "HIST 11", title: "US History", credits: 3, level: "lower" },
        { institutionId: BERKELEY, code: "CHEM 1A", title: "General Chemistry", credits: 3, level: "lower" },
        { institutionId: BERKELEY, code: "MATH 1A", title: "Calculus", credits: 4, level: "lower" },
      ])
      .expect(201);
    for (const item of courses.body.data) course[item.code] = item.id;
    const create = async (name: string, body: object) => {
      rule[name] = (await t.http.post("/api/v1/equivalencies").set(key).send(body).expect(201)).body.data.id;
    };
    await create("chem", {
      sourceCourseIds: [course["CHEM 11"]],
      targetInstitutionId: BERKELEY,
      targets: [{ courseId: course["CHEM 1A"] }],
      status: "accepted",
    });
    await create("math", {
      sourceCourseIds: [course["MATH 7"]],
      targetInstitutionId: BERKELEY,
      targets: [{ courseId: course["MATH 1A"] }],
    });
    served = await signedInPage(t, { email: "steward@acme.example", role: "contributor" });
    ({ origin, page } = served);
  });

  after(async () => {
    await served?.close();
    await t?.close();
  });

  expectNoPageProblems(() => served);

  it("checks a CSV file by a dry run, then imports it: counts, and the row issues by row and column", async () => {
    const csv = [
      "source_institution,source_course_1,target_institution,target_course_1,kind,status",
      `${SANTA_MONICA},HIST 11,${BERKELEY},HIST 1XX,elective,pending`,
      `${SANTA_MONICA},CHEM 11,${BERKELEY},CHEM 3X,equivalent,accepted`,
      `${SANTA_MONICA},CHEM 99,${BERKELEY},CHEM 1A,equivalent,pending`,
    ].join("\n");
    await go("/");
    await page.getByRole("navigation").getByRole("link", { name: "Import rules" }).click();
    await heading("Import rules").waitFor();
    await page
      .getByLabel("CSV file", { exact: true })
      .setInputFiles({ name: "rules.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    expect(await page.getByRole("radio", { name: /^Dry run/ }).isChecked()).to.equal(true);
    await page.getByRole("button", { name: "Check the file" }).click();
    await page.getByRole("heading", { name: "Dry run: rules.csv" }).waitFor();
    const counts = page.locator("dl.facts");
    expect(await counts.locator("dd").allTextContents()).to.deep.equal(["3", "1", "0", "0", "1", "1"]);
    const issues = page.getByRole("table", { name: /^Issues/ });
    // The server's messages name records by id; the page names them (an id after a name left out).
    await issues.getByRole("cell", { name: 'no course "CHEM 99" at Santa Monica College', exact: true }).waitFor();
    await issues
      .getByRole("cell", { name: "ambiguous with the accepted rule CHEM 11 → CHEM 1A: would be stored as conflict" })
      .waitFor();
    expect(await issues.getByTitle(rule.chem).textContent()).to.equal("CHEM 11 → CHEM 1A");
    const rows = await issues.getByRole("row").allTextContents();
    expect(rows.slice(1)).to.have.length(2);
    expect(rows.join("\n")).to.contain("source_course_1");
    await expectNoVisibleIds(issues, "the import's issues");
    expect(await t.database.prisma.equivalency.count()).to.equal(2);
    await checkPage(page, "rules-import-dry-run");

    await page.getByRole("radio", { name: /^Import/ }).check();
    await page.getByRole("button", { name: "Import the file" }).click();
    await page.getByRole("heading", { name: "Imported: rules.csv" }).waitFor();
    expect(await counts.locator("dd").allTextContents()).to.deep.equal(["3", "1", "0", "0", "1", "1"]);
    await checkPage(page, "rules-import");
    const imported = await t.database.prisma.equivalency.findMany({
      where: { sourceCourseId: { in: [course["HIST 11"], course["CHEM 11"]] } },
      orderBy: { createdAt: "asc" },
    });
    expect(imported.map((r) => [r.status, r.targetCode])).to.deep.equal([
      ["accepted", "CHEM 1A"],
      ["pending", "HIST 1XX"],
      ["conflict", "CHEM 3X"],
    ]);
    rule.hist = imported[1].id;
    rule.chemConflict = imported[2].id;
  });

  it("rejects a waiting rule from the review queue after a confirmation: accepted, does not transfer", async () => {
    await go("/review");
    await heading("Review queue").waitFor();
    const row = page.getByRole("row").filter({ hasText: "MATH 7" });
    await row.getByRole("textbox").fill("No calculus equivalent at Berkeley");
    await row.getByRole("button", { name: /^Reject MATH 7/ }).click();
    const confirm = page.getByRole("alertdialog");
    await confirm.getByText("record that these courses do not transfer").waitFor();
    await checkPage(page, "rules-review-reject");
    await confirm.getByRole("button", { name: /^Yes, reject/ }).click();
    await page.getByRole("status").getByText("rejected (does not transfer)").waitFor();
    const math = await stored(rule.math);
    expect(math).to.deep.include({ status: "accepted", kind: "no_credit", targetCourseId: null, version: 2 });
    expect(math.targets).to.deep.equal([]);
    const version = await t.database.prisma.equivalencyVersion.findFirstOrThrow({
      where: { equivalencyId: rule.math, version: 2 },
    });
    expect(version.changeNote).to.equal("No calculus equivalent at Berkeley");
  });

  it("edits every field of a rule with If-Match, and is refused an edit that makes it ambiguous, with a link", async () => {
    await go(`/equivalencies/${rule.hist}`);
    await page.getByRole("button", { name: "Edit rule" }).click();
    const form = page.getByRole("form", { name: "Edit the rule" });
    await form.getByLabel("Kind").selectOption("general_education");
    await form.getByLabel("General education area").fill("IGETC 4");
    await form.getByLabel("Target 1: credits (optional)").fill("3");
    await form.getByLabel("Minimum grade").selectOption("C");
    await form.getByLabel("Effective from (optional)").fill("2025-01-01");
    await form.getByLabel("Effective until (optional)").fill("2027-06-30");
    await form.getByLabel(/^Priority/).fill("2");
    await form.getByLabel("Status", { exact: true }).selectOption("accepted");
    await form.getByLabel("Change note").fill("Counts for IGETC area 4");
    await checkPage(page, "rules-edit");
    await form.getByRole("button", { name: "Save rule" }).click();
    await page.getByText("Rule saved (version 2).").waitFor();
    // The history says what changed in words: the targets by code, with their credits.
    const change = page.locator("ol.timeline > li").first();
    await change.getByRole("heading", { name: /Version 2/ }).waitFor();
    const targets = change.getByRole("row", { name: /^targets/ });
    expect(await targets.locator("td.before").textContent()).to.equal("HIST 1XX");
    expect(await targets.locator("td.after").textContent()).to.equal("HIST 1XX (3 credits)");
    await expectNoVisibleIds(page.locator("ol.timeline"), "the rule's history");
    expect(await stored(rule.hist)).to.deep.include({
      kind: "general_education",
      generalEducationArea: "IGETC 4",
      minimumGrade: "C",
      effectiveFrom: "2025-01-01",
      effectiveUntil: "2027-06-30",
      priority: 2,
      status: "accepted",
      version: 2,
    });

    // The imported conflict says CHEM 3X where the accepted rule says CHEM 1A: accepting it is ambiguous.
    await go(`/equivalencies/${rule.chemConflict}`);
    // Accepting it as it stands is refused alike; the problem names the institution and the rule in force.
    await page.getByLabel("New status").selectOption("accepted");
    await page.getByRole("button", { name: "Change status" }).click();
    const refusal = page.getByRole("alert");
    const inForce = refusal.getByText("CHEM 11 → CHEM 1A", { exact: true });
    await inForce.waitFor();
    expect(await inForce.getAttribute("title")).to.equal(rule.chem);
    await refusal.getByText("University of California-Berkeley").first().waitFor();
    await expectNoVisibleIds(refusal, "the refusal of an ambiguous status change");
    await page.getByRole("button", { name: "Edit rule" }).click();
    const conflicting = page.getByRole("form", { name: "Edit the rule" });
    await conflicting.getByLabel("Status", { exact: true }).selectOption("accepted");
    await conflicting.getByRole("button", { name: "Save rule" }).click();
    const alert = conflicting.getByRole("alert");
    const link = alert.getByRole("link", { name: "Open the conflicting rule CHEM 11 → CHEM 1A" });
    await link.waitFor();
    expect(await link.getAttribute("href")).to.equal(`/dashboard/equivalencies/${rule.chem}`);
    await alert.getByText("University of California-Berkeley").first().waitFor();
    await expectNoVisibleIds(alert, "the refusal of an ambiguous edit");
    await checkPage(page, "rules-edit-ambiguous");
    expect(await stored(rule.chemConflict)).to.deep.include({ status: "conflict", version: 1 });
    await link.click();
    await heading(/^Equivalency: CHEM 11 → CHEM 1A/).waitFor();
  });
});
