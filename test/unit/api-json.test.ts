// The database renders the API's representation of equivalencies for the hottest reads (migration
// "api_json": GET /equivalencies/{id} and the list's pages pass its text through). Held here to
// the JavaScript views (expandedView, equivalencyView) over records read by Prisma, on both
// databases (SVC_TEST_DATABASE_URL), field by field and in the same order, over rules of every
// shape: one-to-one, several sources and targets, each kind, null and set dates, grades, credits,
// awkward text; through the driver (Database.statement) and through Prisma's raw queries.
import { expect } from "chai";
import type { Course, Institution } from "../../generated/prisma/client.ts";
import { createEquivalenciesRepository } from "../../src/repositories/equivalencies.ts";
import type { EquivalenciesRepository, EquivalencyFilters } from "../../src/repositories/equivalencies.ts";
import { expandedView } from "../../src/services/equivalencies.ts";
import { equivalencyView } from "../../src/views/catalog.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { course, insertRules, RULES } from "../helpers/rule-records.ts";

describe("the database's rendering of equivalencies equals the JavaScript views", () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
    const prisma = t.database.prisma;
    await loadInstitutions(prisma, "live");
    await prisma.course.createMany({
      data: [
        course("crs_a", "inst_122977", { description: 'Quotes " and, commas\r\nand lines', cipCode: "40.0501" }),
        course("crs_b", "inst_122977", { credits: 4.5, creditUnit: "quarter", level: "upper" }),
        course("crs_c", "inst_119216", { credits: 0.5, creditUnit: "clock_hour", description: null }),
        course("crs_t1", "inst_110635", { title: "Général — Chemistry 😀", version: 7 }),
        course("crs_t2", "inst_110635", { credits: 3.33, creditUnit: "ceu" }),
      ],
    });
    await insertRules(prisma, RULES);
  });
  after(() => t.close());

  /** The record as Prisma reads it, with the relations expandedView shows. */
  async function expandedRecord(id: string) {
    const prisma = t.database.prisma;
    const record = await prisma.equivalency.findUniqueOrThrow({
      where: { id },
      include: { sourceCourse: { include: { institution: true } }, targetInstitution: true, targetCourse: true },
    });
    const sources = await prisma.course.findMany({
      where: { id: { in: record.anySetCourseIds } },
      include: { institution: true },
    });
    const byId = new Map<string, Course & { institution: Institution }>(sources.map((c) => [c.id, c]));
    return {
      ...record,
      sourceCourses: record.sourceCourseIds.map((courseId) => byId.get(courseId)!),
      sourceCourseSetCourses: (record.sourceCourseSets as string[][]).map((set) => set.map((id) => byId.get(id)!)),
    };
  }

  const repositories = (): [string, EquivalenciesRepository][] => [
    ["through the driver (Database.statement)", t.app.context.repositories.equivalencies],
    ["through Prisma's raw queries", createEquivalenciesRepository(t.database.prisma)],
  ];

  it("GET /equivalencies/{id}: each rule's text is expandedView's JSON, field for field and in order", async () => {
    for (const [how, equivalencies] of repositories()) {
      for (const rule of RULES) {
        const rendered = await equivalencies.findRenderedById("live", rule.id);
        const record = await expandedRecord(rule.id);
        expect(rendered, `${rule.id} ${how}`).to.not.equal(null);
        expect(rendered!.version).to.equal(record.version);
        const parsed = JSON.parse(rendered!.representation);
        expect(parsed, `${rule.id} ${how}`).to.deep.equal(expandedView(record));
        expect(JSON.stringify(parsed), `${rule.id} ${how}: field order`).to.equal(JSON.stringify(expandedView(record)));
      }
      expect(await equivalencies.findRenderedById("sandbox", "eq_many"), "another environment").to.equal(null);
      expect(await equivalencies.findRenderedById("live", "eq_missing")).to.equal(null);
    }
  });

  it("the list's pages are equivalencyView's JSON of listPage's rows, with the same next keys and counts", async () => {
    const filterSets: EquivalencyFilters[] = [
      {},
      { status: "accepted" },
      { kind: "no_credit" },
      { sourceCourse: "crs_c" },
      { asOf: "2025-06-01" },
      { updatedSince: "2025-01-01T02:00:03.000+02:00" },
    ];
    for (const [how, equivalencies] of repositories()) {
      for (const filters of filterSets) {
        const label = `${how} ${JSON.stringify(filters)}`;
        let after: Date | string | undefined;
        let afterKey: (Date | string | number)[] | undefined;
        let pages = 0;
        do {
          const page = { limit: 2, offset: 0, ...(afterKey ? { after: afterKey } : {}) };
          const expected = await equivalencies.listPage("live", filters, page);
          const rendered = await equivalencies.listRenderedPage("live", filters, page);
          const views = expected.items.map(equivalencyView);
          expect(JSON.parse(rendered.items), label).to.deep.equal(views);
          expect(JSON.stringify(JSON.parse(rendered.items)), `${label}: field order`).to.equal(JSON.stringify(views));
          expect(rendered.returned, label).to.equal(expected.items.length);
          expect(rendered.total, label).to.equal(expected.total);
          expect(rendered.next, label).to.deep.equal(expected.next);
          afterKey = rendered.next ?? undefined;
          after = afterKey?.[1] as string | undefined;
          pages += 1;
        } while (after && pages < 10);
      }
      const deep = await equivalencies.listRenderedPage("live", {}, { limit: 2, offset: 4 });
      expect(JSON.parse(deep.items).map((item: { id: string }) => item.id)).to.deep.equal(
        (await equivalencies.listPage("live", {}, { limit: 2, offset: 4 })).items.map((item) => item.id),
      );
      const empty = await equivalencies.listRenderedPage("sandbox", {}, { limit: 2, offset: 0 });
      expect(empty).to.deep.equal({ items: "[]", returned: 0, total: 0, next: null });
    }
  });
});
