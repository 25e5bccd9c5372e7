// importEquivalencies keeps a file within the layout and the schema: a header of millions of
// columns is refused before it is parsed, with a short answer; unknown columns are reported once;
// issues are capped; every cell is held to its field's limit as a row issue (never a 500, never
// stored beyond the schema); a row naming more courses than a rule holds is refused, never cut;
// the file is strict UTF-8. On the database the suite runs on (PGlite, or PostgreSQL with
// SVC_TEST_DATABASE_URL).
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { loadInstitutions, postCourses, ruleCourses } from "../helpers/fixtures.ts";
import { MAX_IMPORT_COLUMNS, MAX_LISTED_ISSUES } from "../../src/services/rules/import-csv.ts";

const SMC = "inst_122977";
const BERKELEY = "inst_110635";
const HEADER = "source_institution,source_course_1,target_institution,target_course_1,status";

describe("rules: importEquivalencies within the layout's and the schema's limits", () => {
  let t: TestApp;
  const upload = (csv: string | Buffer, query = "", contentType = "text/csv") =>
    t.http
      .post(`/api/v1/equivalencies/imports${query}`)
      .set(bearer(t.keys.live))
      .set("Content-Type", contentType)
      .send(csv);

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await postCourses(t, ruleCourses("CHEM 1A", "CHEM 1AL", "HIST 11", "MATH 7", "CHEM 4A", "MATH 1A"));
  });
  after(() => t.close());

  it("an 8 MB header of 4,000,000 columns is a 400 naming the count, with a short answer, before any column is read", async () => {
    const header = `source_institution,source_course_1,target_institution${",x".repeat(4_000_000)}`;
    const response = await upload(`${header}\n${SMC},HIST 11,${BERKELEY}\n`, "?dryRun=true");
    await expectContract(response, 400);
    expect(response.body.detail).to.contain("4,000,003 columns").and.contain(`at most ${MAX_IMPORT_COLUMNS}`);
    expect(response.text.length).to.be.below(2_000);
  });

  it("an unknown column is reported once, however often the header names it; issues are capped with a total", async () => {
    const twice = await upload(
      `${HEADER},notes,notes\n${SMC},HIST 11,${BERKELEY},HISTORY 1XX,pending,a,b\n`,
      "?dryRun=true",
    );
    await expectContract(twice, 200);
    expect(twice.body.issues).to.deep.equal([
      { row: 0, column: "notes", message: "is not a column of the layout; ignored" },
    ]);

    const rows = Array.from(
      { length: MAX_LISTED_ISSUES + 500 },
      () => `${SMC},HIST 11,${BERKELEY},HISTORY 1XX,sideways`,
    );
    const many = await upload([HEADER, ...rows].join("\n"), "?dryRun=true");
    await expectContract(many, 200);
    expect(many.body.summary).to.deep.include({ received: MAX_LISTED_ISSUES + 500, rejected: MAX_LISTED_ISSUES + 500 });
    expect(many.body.issues).to.have.length(MAX_LISTED_ISSUES + 1);
    expect(many.body.issues.at(-1)).to.deep.equal({
      row: 0,
      column: null,
      message: "1,500 issues in all; the first 1,000 are listed",
    });
  });

  it("a row longer than the record limit is a 400 naming the row", async () => {
    const response = await upload(
      `${HEADER}\n${SMC},HIST 11,${BERKELEY},${"X".repeat(300_000)},pending\n`,
      "?dryRun=true",
    );
    await expectContract(response, 400);
    expect(response.body.detail).to.contain("row 1 is longer than 262,144 characters");
  });

  it("cells beyond the schema's limits are row issues, never a 500 nor stored: a 6,000-character target code, a 100,000-character GE area, a 2,001-character policy basis", async () => {
    const before = await t.database.prisma.equivalency.count();
    const csv = [
      `${HEADER},general_education_area,policy_basis,kind`,
      `${SMC},HIST 11,${BERKELEY},${"X".repeat(6_000)},pending,,,elective`,
      `${SMC},HIST 11,${BERKELEY},HISTORY 2XX,pending,${"A".repeat(100_000)},,general_education`,
      `${SMC},HIST 11,${BERKELEY},HISTORY 3XX,pending,,${"P".repeat(2_001)},elective`,
      `${SMC},HIST 11,${BERKELEY},HISTORY 4XX,pending,,policy,elective`,
    ].join("\n");
    for (const query of ["?dryRun=true", ""]) {
      const response = await upload(csv, query);
      await expectContract(response, 200);
      expect(response.body.summary).to.deep.include({ created: 1, rejected: 3 });
      expect(response.body.issues.map((i: { row: number; column: string }) => [i.row, i.column])).to.deep.equal([
        [1, "target_course_1"],
        [2, "general_education_area"],
        [3, "policy_basis"],
      ]);
      expect(response.body.issues[0].message).to.contain("at most 50 characters");
      expect(response.body.issues[2].message).to.equal("is at most 2,000 characters; this cell has 2,001");
    }
    expect(await t.database.prisma.equivalency.count()).to.equal(before + 1);
  });

  it("a row naming 13 source courses (source_course_11 and beyond) is refused saying how many, never cut to 10", async () => {
    const header = `source_institution,${Array.from({ length: 13 }, (_, i) => `source_course_${i + 1}`).join(",")},target_institution,target_course_1,status`;
    const codes = ["CHEM 1A", "CHEM 1AL", "HIST 11", "MATH 7", ...Array.from({ length: 9 }, (_, i) => `ASTR 10${i}`)];
    const before = await t.database.prisma.equivalency.count();
    const response = await upload(`${header}\n${SMC},${codes.join(",")},${BERKELEY},ASTRON 1XX,pending\n`);
    await expectContract(response, 200);
    expect(response.body.summary).to.deep.include({ received: 1, created: 0, rejected: 1 });
    expect(response.body.issues).to.deep.equal([
      {
        row: 1,
        column: "source_course_13",
        message:
          "the row names 13 source courses (up to source_course_13); a rule has at most 10 (source_course_1 to source_course_10): the row is refused, not cut short",
      },
    ]);
    const expression = await upload(
      `source_institution,source_courses,target_institution,target_courses\n${SMC},${codes.join(" + ")},${BERKELEY},ASTRON 1XX\n`,
    );
    await expectContract(expression, 200);
    expect(expression.body.issues).to.deep.equal([
      { row: 1, column: "source_courses", message: "names 13 courses; a set holds at most 10" },
    ]);
    expect(await t.database.prisma.equivalency.count()).to.equal(before);
  });

  it("issues name courses by the file's codes and an unknown institution as unknown", async () => {
    const response = await upload(
      [
        "source_institution,source_courses,target_institution,target_course_1",
        `${SMC},MATH 7 + math 7,${BERKELEY},MATH 1A`,
        `inst_999999,CHEM 1A,${BERKELEY},CHEM 4A`,
        `${SMC},CHEM 99,${BERKELEY},CHEM 4A`,
      ].join("\n"),
      "?dryRun=true",
    );
    await expectContract(response, 200);
    expect(response.body.issues).to.deep.equal([
      { row: 1, column: "source_courses", message: 'the course "MATH 7" is listed twice' },
      {
        row: 2,
        column: "source_institution",
        message: 'the institution "inst_999999" is unknown (no institution with that id or IPEDS unit id)',
      },
      { row: 3, column: "source_courses", message: 'no course "CHEM 99" at Santa Monica College (inst_122977)' },
    ]);
    expect(JSON.stringify(response.body)).not.to.match(/crs_/);
  });

  it("strict UTF-8: Latin-1 bytes are a 400 naming the byte offset; a charset other than utf-8 is a 415", async () => {
    const latin1 = Buffer.from(
      `${HEADER}\n${SMC},HIST 11,${BERKELEY},HISTORY 1XX,pending\n`.replace("HISTORY", "HIST\u00c9RY"),
      "latin1",
    );
    const offset = latin1.indexOf(0xc9);
    const before = await t.database.prisma.equivalency.count();
    const bad = await upload(latin1);
    await expectContract(bad, 400);
    expect(bad.body.detail).to.contain(`byte ${offset.toLocaleString("en-US")} (0xC9`);
    const declared = await upload(latin1, "", "text/csv; charset=latin1");
    await expectContract(declared, 415);
    expect(declared.body.detail).to.contain("must be UTF-8, not latin1");
    const utf8 = await upload(
      Buffer.from(latin1.toString("latin1"), "utf8"),
      "?dryRun=true",
      "text/csv; charset=UTF-8",
    );
    await expectContract(utf8, 200);
    expect(utf8.body.summary).to.deep.include({ created: 1 });
    expect(await t.database.prisma.equivalency.count()).to.equal(before);
  });
});
