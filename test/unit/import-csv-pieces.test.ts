// readRows hands the file to the CSV parser a piece at a time (so that a large file does not keep
// the process's other requests waiting); what it reads must not depend on where the pieces end.
import { expect } from "chai";
import { readRows } from "../../src/services/rules/import-csv.ts";

const HEADER = "source_institution,source_course_1,target_institution,target_course_1,general_education_area";
const PIECE = 32_768;

describe("rules: a CSV file read in pieces", () => {
  it("reads every row of a file many pieces long, in order", async () => {
    const lines = Array.from({ length: 5_000 }, (_, n) => `110635,MATH ${n},122977,MATH 1,Area ${n}`);
    const text = [HEADER, ...lines].join("\n");
    expect(text.length).to.be.greaterThan(5 * PIECE);
    const { rows } = await readRows(text);
    expect(rows.map((row) => row.row)).to.deep.equal(lines.map((_, n) => n + 1));
    expect(rows.map((row) => row.fields.generalEducationArea)).to.deep.equal(lines.map((_, n) => `Area ${n}`));
  });

  it("a character outside the Basic Multilingual Plane across a piece's end is read whole", async () => {
    const area = "𝔄rea"; // two UTF-16 code units for its first character
    for (const offset of [-1, 0, 1]) {
      const before = `${HEADER}\n110635,MATH 1,122977,MATH 1,`;
      // Padding rows put the first half of the pair at the piece's last code unit (offset 0), or beside it.
      const padding = PIECE - 1 + offset - before.length;
      const pad = `110635,PAD,122977,PAD,${"x".repeat(padding - "110635,PAD,122977,PAD,\n".length)}\n`;
      const text = `${HEADER}\n${pad}110635,MATH 1,122977,MATH 1,${area}\n`;
      expect(text.indexOf(area)).to.equal(PIECE - 1 + offset);
      const { rows } = await readRows(text);
      expect(rows.at(-1)?.fields.generalEducationArea).to.equal(area);
    }
  });
});
