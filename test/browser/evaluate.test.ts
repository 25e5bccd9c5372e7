// The Evaluate and Requested rules pages in a real browser (Debian chromium, playwright-core)
// against the real service on a fresh database: a pasted list of courses evaluated with its
// reasons, then the course without a rule in the requested rules with its "Create rule" link;
// axe-core and a screenshot on each page.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { buildDashboard } from "../../scripts/build-dashboard.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { checkPage, expectNoPageProblems, type ServedPage, signedInPage } from "./browser.ts";

describe("dashboard in the browser: Evaluate and Requested rules", function () {
  this.timeout(120_000);
  let t: TestApp;
  let served: ServedPage;
  let origin: string;
  let page: Page;
  let courses: Record<string, string>;
  const heading = (name: string) => page.getByRole("heading", { level: 1, name });

  before(async function () {
    this.timeout(300_000);
    await buildDashboard();
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const created = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.live))
      .send([
        { institutionId: "inst_122977", code: "BIO 101", title: "Concepts in Biology", credits: 4, level: "lower" },
        { institutionId: "inst_122977", code: "CHEM 1A", title: "General Chemistry", credits: 5, level: "lower" },
        { institutionId: "inst_110635", code: "CHEM 4A", title: "General Chemistry", credits: 4, level: "lower" },
      ])
      .expect(201);
    courses = Object.fromEntries(created.body.data.map((row: { code: string; id: string }) => [row.code, row.id]));
    await t.http
      .post("/api/v1/equivalencies")
      .set(bearer(t.keys.live))
      .send({
        sourceCourseId: courses["CHEM 1A"],
        targetInstitutionId: "inst_110635",
        targetCourseId: courses["CHEM 4A"],
        status: "accepted",
      })
      .expect(201);
    served = await signedInPage(t, { email: "advisor@acme.example", role: "contributor" });
    ({ origin, page } = served);
  });

  after(async () => {
    await served?.close();
    await t?.close();
  });

  expectNoPageProblems(() => served);

  it("evaluates a pasted list of courses and shows each outcome with its reasons", async () => {
    await page
      .getByRole("navigation", { name: "Dashboard" })
      .getByRole("link", { name: "Evaluate", exact: true })
      .click();
    await heading("Evaluate").waitFor();
    await page.getByLabel("Target institution", { exact: true }).fill("Berkeley");
    await page.getByRole("button", { name: /^University of California-Berkeley/ }).click();
    await page
      .getByLabel("Courses", { exact: true })
      .fill("inst_122977, BIO 101, B, 2025-06-12\ninst_122977\tCHEM 1A\tC\t2025-06-12");
    await page.getByRole("button", { name: "Evaluate" }).click();
    await page.getByRole("heading", { name: "Results" }).waitFor();
    const rows = page.getByRole("table", { name: "Evaluation results" }).getByRole("row");
    expect(await rows.count()).to.equal(3);
    expect(await rows.nth(1).textContent()).to.include("no rule");
    expect(await rows.nth(1).textContent()).to.include(
      "No accepted rule of University of California-Berkeley has BIO 101",
    );
    expect(await rows.nth(2).textContent()).to.include("equivalent");
    expect(await rows.nth(2).textContent()).to.include("CHEM 4A");
    await page.getByText("1 of 2 courses count at University of California-Berkeley").waitFor();
    await checkPage(page, "evaluate");
  });

  it("says what is wrong with a pasted line before asking", async () => {
    await page.getByLabel("Courses", { exact: true }).fill("inst_122977, BIO 101, Q");
    await page.getByRole("button", { name: "Evaluate" }).click();
    await page.getByRole("alert").getByText('Line 1: "Q" is not a grade').waitFor();
  });

  it("lists the requested rules by demand, with a Create rule link prefilled", async () => {
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Requested rules" }).click();
    await heading("Requested rules").waitFor();
    await page.getByLabel("Target institution", { exact: true }).fill("Berkeley");
    await page.getByRole("button", { name: /^University of California-Berkeley/ }).click();
    await page.getByRole("button", { name: "Show" }).click();
    const row = page.getByRole("table", { name: "Requested rules" }).getByRole("row").nth(1);
    await row.getByText("BIO 101", { exact: true }).waitFor();
    expect(await row.textContent()).to.include("Concepts in Biology");
    const link = row.getByRole("link", { name: "Create rule for BIO 101" });
    const href = new URL((await link.getAttribute("href")) ?? "", origin);
    expect(href.pathname).to.equal("/dashboard/equivalencies/new");
    expect(Object.fromEntries(href.searchParams)).to.deep.equal({
      sourceCourseIds: courses["BIO 101"],
      targetInstitutionId: "inst_110635",
    });
    await checkPage(page, "requested-rules");
    // The form opens with the course and the institution chosen.
    await link.click();
    await heading("New rule").waitFor();
    // The page's policy forbids eval, so the fields are read through locators until they are filled.
    const filled = async (selector: string, expected: (value: string) => boolean) => {
      while (!expected(await page.locator(selector).inputValue())) await page.waitForTimeout(50);
    };
    await filled("#r-source-0", (value) => value.startsWith("BIO 101"));
    await filled("#r-target-institution", (value) => value.includes("Berkeley"));
  });
});
