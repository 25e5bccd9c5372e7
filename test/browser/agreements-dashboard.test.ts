// Agreements as colleges publish them, in the dashboard (Debian chromium, playwright-core, the real
// service on a fresh database): a rule of alternatives ("MATH 7 or MATH 7H") that gives one of two
// courses written through the New rule form and read back whole; a cross-listed course edited and
// shown with its codes together; a contradiction shown side by side in the review queue and
// resolved in one click; a transcript course the catalog lacks evaluated by code and title.
// axe-core on every page, no console error, a screenshot of each.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { buildDashboard } from "../../scripts/build-dashboard.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { checkPage, expectNoPageProblems, type ServedPage, signedInPage } from "./browser.ts";

const SANTA_MONICA = "inst_122977";
const BERKELEY = "inst_110635";

describe("dashboard: alternatives, choices, cross-listed courses and contradictions", function () {
  this.timeout(120_000);
  let t: TestApp;
  let served: ServedPage;
  let origin: string;
  let page: Page;
  const course: Record<string, string> = {};

  const go = (path: string) => page.goto(`${origin}/dashboard${path}`);
  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const key = () => bearer(t.keys.live);
  const stored = async (id: string) =>
    (await t.http.get(`/api/v1/equivalencies/${id}`).set(key()).expect(200)).body.data;
  const pick = async (label: string, text: string, match: RegExp) => {
    await page.getByLabel(label, { exact: true }).fill(text);
    await page.getByRole("button", { name: match }).click();
  };

  before(async function () {
    this.timeout(300_000);
    await buildDashboard();
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const courses = await t.http
      .post("/api/v1/courses")
      .set(key())
      .send([
        { institutionId: SANTA_MONICA, code: "MATH 7", title: "Calculus 1", credits: 5, level: "lower" },
        { institutionId: SANTA_MONICA, code: "MATH 7H", title: "Honors Calculus 1", credits: 5, level: "lower" },
        { institutionId: SANTA_MONICA, code: "BIOL 400", title: "General Biology", credits: 4, level: "lower" },
        { institutionId: SANTA_MONICA, code: "BIOL 410", title: "Biology Laboratory", credits: 1, level: "lower" },
        { institutionId: BERKELEY, code: "MATH 1A", title: "Calculus", credits: 4, level: "lower" },
        {
          institutionId: BERKELEY,
          code: "MATH 16A",
          title: "Analytic Geometry and Calculus",
          credits: 3,
          level: "lower",
        },
        { institutionId: BERKELEY, code: "BIOL 1A", title: "General Biology Lecture", credits: 3, level: "lower" },
        {
          institutionId: BERKELEY,
          code: "COMPSCI C8",
          title: "Foundations of Data Science",
          credits: 4,
          level: "lower",
        },
      ])
      .expect(201);
    for (const item of courses.body.data) course[item.code] = item.id;
    served = await signedInPage(t, { email: "steward@acme.example", role: "contributor" });
    ({ origin, page } = served);
  });

  after(async () => {
    await served?.close();
    await t?.close();
  });

  expectNoPageProblems(() => served);

  it("writes a rule of alternatives that gives one of two courses, and shows it whole", async () => {
    await go("/equivalencies/new");
    await heading("New rule").waitFor();
    await pick("Source course", "MATH 7", /^MATH 7 — Calculus 1/);
    await page.getByRole("button", { name: "Add an alternative set" }).click();
    await pick("Or alternative 1: course", "MATH 7H", /^MATH 7H — Honors Calculus 1/);
    await pick("Target institution", "Berkeley", /^University of California-Berkeley/);
    await pick("Target 1: course at the target institution", "MATH 1A", /^MATH 1A — Calculus/);
    await page.getByRole("button", { name: "Add a target" }).click();
    await pick("Target 2: course at the target institution", "MATH 16A", /^MATH 16A — Analytic/);
    await page.getByLabel("The student receives").selectOption("one_of");
    await page.getByLabel("Status").selectOption("accepted");
    await checkPage(page, "agreements-new-rule");
    await page.getByRole("button", { name: "Create rule" }).click();
    await heading(
      "Equivalency: MATH 7 or MATH 7H → MATH 1A or MATH 16A (one of them, by the student's program)",
    ).waitFor();
    const facts = page.locator("dl.facts");
    await facts.getByText("Source courses (any one of these 2 alternatives, each set all required)").waitFor();
    await facts.getByText("Targets (one of them, chosen by the student's program)").waitFor();
    await checkPage(page, "agreements-rule");
    const id = page.url().split("/").pop() ?? "";
    const rule = await stored(id);
    expect(rule.sourceCourseSets).to.deep.equal([[course["MATH 7"]], [course["MATH 7H"]]]);
    expect(rule.targetChoice).to.equal("one_of");
    expect(rule.targets.map((target: { courseId: string }) => target.courseId)).to.deep.equal([
      course["MATH 1A"],
      course["MATH 16A"],
    ]);

    // Filtered by the second alternative's course, the list shows the rule whole.
    await go(`/equivalencies?sourceCourse=${course["MATH 7H"]}`);
    await page.getByRole("link", { name: /^MATH 7 or MATH 7H → MATH 1A or MATH 16A/ }).waitFor();
    expect(await page.locator("main").textContent()).not.to.match(/crs_|inst_/);
    await checkPage(page, "agreements-rules-list");
  });

  it("edits a course's cross-listed codes and shows its codes together", async () => {
    await go(`/courses/${course["COMPSCI C8"]}`);
    await heading("COMPSCI C8 — Foundations of Data Science").waitFor();
    await page.getByRole("button", { name: "Edit course" }).click();
    await page.getByLabel(/^Cross-listed codes/).fill("DATA C8, STAT C8");
    await page.getByRole("button", { name: "Save course" }).click();
    await heading("COMPSCI C8 = DATA C8 = STAT C8 — Foundations of Data Science").waitFor();
    await page.locator("dl.facts").getByText("DATA C8, STAT C8").waitFor();
    await checkPage(page, "agreements-cross-listed-course");
    const read = await t.http.get(`/api/v1/courses/${course["COMPSCI C8"]}`).set(key()).expect(200);
    expect(read.body.data.crossListedCodes).to.deep.equal(["DATA C8", "STAT C8"]);
  });

  it("shows a contradiction side by side in the review queue and resolves it in one click", async () => {
    const create = async (body: object) =>
      (await t.http.post("/api/v1/equivalencies").set(key()).send(body).expect(201)).body.data.id as string;
    const sources = [course["BIOL 400"], course["BIOL 410"]];
    const inForce = await create({
      sourceCourseIds: sources,
      targetInstitutionId: BERKELEY,
      targets: [{ courseId: course["BIOL 1A"] }],
      status: "accepted",
    });
    const rival = await create({
      sourceCourseIds: [...sources].reverse(),
      targetInstitutionId: BERKELEY,
      targets: [{ code: "BIOL 1XX" }],
      kind: "elective",
      status: "conflict",
    });
    await go("/review");
    await heading("Review queue").waitFor();
    const group = page.getByRole("region", { name: "Contradicting rules" });
    await group.getByRole("link", { name: "BIOL 400 + BIOL 410 → BIOL 1A" }).waitFor();
    await group.getByRole("link", { name: "BIOL 410 + BIOL 400 → BIOL 1XX" }).waitFor();
    await checkPage(page, "agreements-review-contradiction");
    await group
      .getByRole("article", { name: "Rule giving BIOL 1XX" })
      .getByRole("button", { name: "Accept this one, park the others" })
      .click();
    await page.getByRole("status").getByText("Accepted one rule; the other waits in conflict.").waitFor();
    expect((await stored(rival)).status).to.equal("accepted");
    expect((await stored(inForce)).status).to.equal("conflict");
  });

  it("evaluates a transcript course the catalog lacks by its code and title", async () => {
    await go("/evaluate");
    await heading("Evaluate").waitFor();
    await pick("Target institution", "Berkeley", /^University of California-Berkeley/);
    await page
      .getByLabel("Courses", { exact: true })
      .fill(`122977, MATH 7H, B, 2025-06-12\n122977, MATH 99X, A, 2025-06-12, Special Topics in Mathematics`);
    await page.getByRole("button", { name: "Evaluate" }).click();
    const results = page.getByRole("table", { name: "Evaluation results" });
    await results
      .getByRole("row", { name: /MATH 99X Special Topics in Mathematics/ })
      .getByText("unknown course")
      .waitFor();
    await results
      .getByRole("row", { name: /MATH 7H Honors Calculus 1/ })
      .getByRole("cell", { name: /^MATH 1A or MATH 16A \(one of/ })
      .waitFor();
    await page.getByText(/courses count at University of California-Berkeley/).waitFor();
    await checkPage(page, "agreements-evaluate-unknown-course");
  });
});
