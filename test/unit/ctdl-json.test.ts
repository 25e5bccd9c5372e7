// The database renders the CTDL JSON-LD export (migration "exports_rendered_json":
// "equivalency_ctdl_json"). Held here to the JavaScript rendering it replaced
// (test/helpers/ctdl-oracle.ts), byte for byte, on both databases (SVC_TEST_DATABASE_URL), over
// rules of every shape: several source courses (one of them unknown), targets that are course
// records, codes, or neither; awarded credits with and without a unit, else the target course's
// credits; start dates from effectiveFrom or the decision; grades, areas, priorities; nulls; empty
// texts; unicode, quotes, backslashes and line breaks; credits of every form; alternative source
// sets (one with a course the catalog lacks), a choice of targets, a cross-listed course. Through the
// repository's batches (cut between rules) and through the service's whole export, which on
// PostgreSQL is one COPY.
import { expect } from "chai";
import type { Credential } from "../../src/auth/credential.ts";
import { createExportsService } from "../../src/services/exports/index.ts";
import { CTDL_CLOSE, CTDL_OPEN } from "../../src/services/exports/ctdl.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { equivalenciesWithCourses, transferValueProfile } from "../helpers/ctdl-oracle.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { at, course, insertRules, RULES, type Rule } from "../helpers/rule-records.ts";
import { drain } from "../helpers/streams.ts";

const COURSES = [
  course("crs_a", "inst_122977", {
    description: 'Quotes " and, commas\r\nand lines \\ backslash\ttab',
    cipCode: "40.0501",
    credits: 0.5,
  }),
  course("crs_b", "inst_122977", { credits: 4.5, creditUnit: "quarter", description: "", cipCode: "" }),
  course("crs_c", "inst_119216", { code: "MATH 1 + 2", credits: 1 / 3, description: null }),
  course("crs_t1", "inst_110635", { title: "Général — Chemistry 😀 \u0001", credits: 3.33, version: 7 }),
  course("crs_t2", "inst_110635", {
    credits: -0,
    creditUnit: "ceu",
    cipCode: "11.0701",
    crossListedCodes: ["DATA C8", 'STAT "C8"'],
  }),
  course("crs_big", "inst_110635", { credits: 123456.789, title: "=Formula" }),
];

/** Beside the rules of every shape the API JSON test uses: what only the CTDL node shows differently. */
const CTDL_RULES: Rule[] = [
  ...RULES,
  {
    id: "eq_unknown_courses",
    sourceCourseIds: ["crs_b", "crs_gone", "crs_a"],
    targetCourseId: "crs_t1",
    targets: [
      { courseId: "crs_t1", code: null, credits: 2.5 },
      { courseId: "crs_missing", code: "LOST 1", credits: null },
      { courseId: "crs_missing", code: null, credits: null },
      { courseId: null, code: "", credits: null },
    ],
    decidedAt: at(5),
    policyBasis: "",
    awardedCredits: 0,
  },
  {
    id: "eq_no_known_source",
    sourceCourseIds: ["crs_gone"],
    sourceCourseId: "crs_big",
    targetCourseId: "crs_big",
    targets: [{ courseId: "crs_big", code: null, credits: null }],
    decidedAt: new Date(Date.UTC(2024, 11, 31, 23, 59, 59, 999)),
    decidedBy: "=Registrar",
  },
  {
    id: "eq_quoted_code",
    sourceCourseIds: ["crs_t2", "crs_c"],
    targetCode: 'CS "61" \\ B 😀',
    targets: [{ courseId: null, code: 'CS "61" \\ B 😀', credits: 4 }],
    awardedCredits: 123456.789,
    awardedCreditUnit: "clock_hour",
    effectiveFrom: new Date("2019-02-28T00:00:00Z"),
    decidedAt: at(2),
  },
  {
    id: "eq_alternatives_one_of",
    sourceCourseIds: ["crs_a"],
    sourceCourseSets: [["crs_a"], ["crs_b", "crs_c"], ["crs_gone", "crs_c"]],
    targetCourseId: "crs_t1",
    targets: [
      { courseId: "crs_t1", code: null, credits: null },
      { courseId: "crs_t2", code: null, credits: null },
    ],
    targetChoice: "one_of",
  },
  {
    id: "eq_lab_twins",
    sourceCourseIds: ["crs_b", "crs_a"],
    sourceCourseSets: [
      ["crs_b", "crs_a"],
      ["crs_b", "crs_c"],
    ],
    targetCode: "BIOL 1A",
    targets: [
      { courseId: null, code: "BIOL 1A", credits: null },
      { courseId: "crs_t2", code: null, credits: 1 },
    ],
  },
];

const caller = (environment: "live" | "sandbox") => ({ organizationId: "org_ctdl", environment }) as Credential;

describe("the database's CTDL rendering equals the JavaScript one (exportData format=ctdl)", () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
    const prisma = t.database.prisma;
    await loadInstitutions(prisma, "live");
    await prisma.course.createMany({ data: COURSES });
    await insertRules(prisma, CTDL_RULES);
  });
  after(() => t.close());

  /** The oracle's nodes, each as JSON.stringify wrote it. */
  async function expectedNodes(environment: "live" | "sandbox") {
    return (await equivalenciesWithCourses(t.database.prisma, environment)).map((record) =>
      JSON.stringify(transferValueProfile(record)),
    );
  }

  it("each rule's node, batch by batch, is the JavaScript node byte for byte", async () => {
    const expected = await expectedNodes("live");
    expect(expected).to.have.length(CTDL_RULES.length);
    const read = t.app.context.repositories.exports.equivalencyCtdlBatches("live");
    let text = "";
    let batch = await read(null, 2);
    for (; batch.rows; batch = await read(batch, 2)) text += batch.text;
    // The first node follows the line break after the graph's opening bracket.
    expect(text.startsWith("\n{")).to.equal(true);
    const nodes = text
      .slice(1)
      .split(",\n{")
      .map((node, i) => (i ? `{${node}` : node));
    expect(nodes).to.have.length(expected.length);
    nodes.forEach((node, i) => {
      expect(JSON.parse(node), CTDL_RULES[i].id).to.deep.equal(JSON.parse(expected[i]));
      expect(node, CTDL_RULES[i].id).to.equal(expected[i]);
    });
  });

  it("the whole export (one COPY on PostgreSQL, batches on the embedded database) is the JavaScript document", async () => {
    const expected = `${CTDL_OPEN}\n${(await expectedNodes("live")).join(",\n")}\n${CTDL_CLOSE}`;
    const services = [
      createExportsService({ exports: t.app.context.repositories.exports }),
      createExportsService({ exports: t.app.context.repositories.exports, renderedBatchSize: 3 }),
    ];
    for (const service of services) {
      const exported = await service.exportData(caller("live"), "equivalencies", "ctdl");
      expect(exported.contentType).to.equal("application/ld+json");
      const { text, error } = await drain(exported.stream);
      expect(error).to.equal(null);
      expect(text).to.equal(expected);
    }
    const empty = await services[0].exportData(caller("sandbox"), "equivalencies", "ctdl");
    const { text } = await drain(empty.stream);
    expect(text).to.equal(`${CTDL_OPEN}\n${CTDL_CLOSE}`);
    expect(JSON.parse(text)["@graph"]).to.deep.equal([]);
  });
});
