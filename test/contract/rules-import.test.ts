// importEquivalencies (POST /equivalencies/imports) decides the whole file at once and writes it
// in one transaction: rows that contradict or repeat an earlier row of the file or a stored
// accepted rule are stored as conflict with an issue, a re-imported file changes nothing, and
// every changed equivalency gets its version, its webhook/change-feed event and its audit entry.
// On the database the suite runs on (PGlite, or PostgreSQL with SVC_TEST_DATABASE_URL).
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { loadInstitutions, postCourses, ruleCourses } from "../helpers/fixtures.ts";
import type { Credential } from "../../src/auth/credential.ts";
import { repositoriesOf } from "../../src/repositories/index.ts";
import { createEquivalencyImportService } from "../../src/services/rules/import.ts";

const SMC = "inst_122977";
const BERKELEY = "inst_110635";

const HEADER = "source_institution,source_course_1,target_institution,target_course_1,effective_from,status";

/** acme's live API key that imports (organizationId is filled in from the test app). */
const importingKey = (id: string): Credential => ({
  kind: "api_key",
  id,
  organizationId: "",
  organizationSlug: "acme",
  channel: "channel_a",
  environment: "live",
  scopes: ["read:public", "write:contribute"],
});

/** A 3-credit lower-division course titled by its subject. */
const lowerCourse = (institutionId: string, code: string, subject: string) => ({
  institutionId,
  code,
  title: `${subject} ${code}`,
  credits: 3,
  level: "lower",
});

describe("rules: importEquivalencies decides the file as one batch", () => {
  let t: TestApp;
  let c: Record<string, string>;
  const upload = (csv: string, query = "") =>
    t.http
      .post(`/api/v1/equivalencies/imports${query}`)
      .set(bearer(t.keys.live))
      .set("Content-Type", "text/csv")
      .send(csv);
  const idOf = async (sourceCode: string, targetCode: string) =>
    (
      await t.database.prisma.equivalency.findFirstOrThrow({
        where: { sourceCourseId: c[sourceCode], targetCourseId: c[targetCode] },
      })
    ).id;
  const counts = async () => ({
    equivalencies: await t.database.prisma.equivalency.count(),
    versions: await t.database.prisma.equivalencyVersion.count(),
    events: await t.database.prisma.outboxEvent.count({ where: { type: { startsWith: "equivalency." } } }),
    // Entries naming an equivalency: the request's own entry (the pipeline's, which names none) is not counted.
    audit: await t.database.prisma.auditEntry.count({ where: { targetType: "equivalency", targetId: { not: null } } }),
  });

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    c = await postCourses(
      t,
      ruleCourses("CHEM 1A", "MATH 7", "ART 10", "BIO 3", "CHEM 4A", "CHEM 3A", "MATH 1A", "ART 8", "BIO 1A"),
    );
  });
  after(() => t.close());

  it("a row contradicting an earlier row of the file is conflict; one repeating it with other dates is a duplicate; a dry run decides the same, in its own words", async () => {
    const csv = [
      HEADER,
      `${SMC},CHEM 1A,${BERKELEY},CHEM 4A,,accepted`,
      `${SMC},CHEM 1A,${BERKELEY},CHEM 3A,,accepted`,
      `${SMC},CHEM 1A,${BERKELEY},CHEM 4A,2025-01-01,accepted`,
    ].join("\n");
    const before = await counts();
    const preview = await upload(csv, "?dryRun=true");
    await expectContract(preview, 200);
    expect(preview.body.summary).to.deep.include({ created: 1, conflict: 2, rejected: 0 });
    expect(await counts()).to.deep.equal(before);

    const imported = await upload(csv);
    await expectContract(imported, 200);
    expect(imported.body.summary).to.deep.equal({
      received: 3,
      created: 1,
      updated: 0,
      unchanged: 0,
      conflict: 2,
      rejected: 0,
    });
    const first = await idOf("CHEM 1A", "CHEM 4A");
    expect(imported.body.issues).to.deep.equal([
      { row: 2, column: "status", message: `ambiguous with the accepted rule of row 1 (${first}): stored as conflict` },
      { row: 3, column: "status", message: `a duplicate of the accepted rule of row 1 (${first}): stored as conflict` },
    ]);
    expect(
      preview.body.issues.map((issue: { message: string }) => issue.message.replace(/eq_\w+/, "eq")),
    ).to.deep.equal([
      "ambiguous with the accepted rule of row 1 (eq): would be stored as conflict",
      "a duplicate of the accepted rule of row 1 (eq): would be stored as conflict",
    ]);
    const stored = await t.database.prisma.equivalency.findMany({
      where: { sourceCourseId: c["CHEM 1A"] },
      orderBy: { id: "asc" },
      select: { status: true, targetCourseId: true },
    });
    expect(stored).to.deep.equal([
      { status: "accepted", targetCourseId: c["CHEM 4A"] },
      { status: "conflict", targetCourseId: c["CHEM 3A"] },
      { status: "conflict", targetCourseId: c["CHEM 4A"] },
    ]);
  });

  it("a row contradicting a stored accepted rule is conflict naming it; the stored rule is left as it was", async () => {
    const stored = await t.http
      .post("/api/v1/equivalencies")
      .set(bearer(t.keys.live))
      .send({
        sourceCourseIds: [c["MATH 7"]],
        targetInstitutionId: BERKELEY,
        targets: [{ courseId: c["MATH 1A"] }],
        status: "accepted",
      });
    await expectContract(stored, 201);
    const imported = await upload([HEADER, `${SMC},MATH 7,${BERKELEY},MATH 99X,,accepted`].join("\n"));
    await expectContract(imported, 200);
    expect(imported.body.summary).to.deep.include({ created: 0, conflict: 1 });
    expect(imported.body.issues).to.deep.equal([
      {
        row: 1,
        column: "status",
        message: `ambiguous with the accepted rule ${stored.body.data.id}: stored as conflict`,
      },
    ]);
    const after = await t.database.prisma.equivalency.findUniqueOrThrow({ where: { id: stored.body.data.id } });
    expect(after).to.deep.include({ status: "accepted", version: 1 });
  });

  it("each changed equivalency gets one version, one event and one audit entry with the request id; a re-imported file changes nothing", async () => {
    const csv = [
      HEADER,
      `${SMC},ART 10,${BERKELEY},ART 8,2024-08-15,accepted`,
      `${SMC},BIO 3,${BERKELEY},BIO 1A,,pending`,
    ].join("\n");
    const before = await counts();
    const imported = await upload(csv);
    await expectContract(imported, 200);
    expect(imported.body.summary).to.deep.include({ created: 2, updated: 0, unchanged: 0, conflict: 0 });
    const requestId = imported.headers["x-request-id"];
    expect(requestId).to.be.a("string");
    const ids = [await idOf("ART 10", "ART 8"), await idOf("BIO 3", "BIO 1A")];
    const afterImport = {
      equivalencies: before.equivalencies + 2,
      versions: before.versions + 2,
      events: before.events + 2,
      audit: before.audit + 2,
    };

    const versions = await t.database.prisma.equivalencyVersion.findMany({ where: { equivalencyId: { in: ids } } });
    expect(versions.map((v) => [v.equivalencyId, v.version])).to.have.deep.members(ids.map((id) => [id, 1]));
    const events = await t.database.prisma.outboxEvent.findMany({ where: { type: "equivalency.created" } });
    const created = events.map((e) => e.payload as { data: { equivalencyId: string; status: string } });
    expect(created.filter((e) => ids.includes(e.data.equivalencyId)).map((e) => e.data.status)).to.have.members([
      "accepted",
      "pending",
    ]);
    const audit = await t.database.prisma.auditEntry.findMany({
      where: { operationId: "importEquivalencies", targetType: "equivalency", targetId: { in: ids } },
    });
    expect(audit.map((entry) => entry.targetId)).to.have.members(ids);
    for (const entry of audit) expect(entry).to.deep.include({ actorKind: "api_key", requestId, environment: "live" });
    expect(await counts()).to.deep.equal(afterImport);

    const again = await upload(csv);
    await expectContract(again, 200);
    expect(again.body.summary).to.deep.equal({
      received: 2,
      created: 0,
      updated: 0,
      unchanged: 2,
      conflict: 0,
      rejected: 0,
    });
    expect(await counts()).to.deep.equal(afterImport);

    // A changed row updates its rule: version 2, an equivalency.updated event, another audit entry.
    const accepted = await upload(csv.replace("BIO 1A,,pending", "BIO 1A,,accepted"));
    expect(accepted.body.summary).to.deep.include({ updated: 1, unchanged: 1 });
    const bio = await t.database.prisma.equivalency.findUniqueOrThrow({ where: { id: ids[1] } });
    expect(bio).to.deep.include({ status: "accepted", version: 2 });
    const updated = (await t.database.prisma.outboxEvent.findMany({ where: { type: "equivalency.updated" } }))
      .map((e) => (e.payload as { data: Record<string, unknown> }).data)
      .filter((data) => data.equivalencyId === ids[1]);
    expect(updated).to.have.length(1);
    expect(updated[0]).to.deep.include({ version: 2, previousStatus: "pending", status: "accepted" });
    expect(updated[0].changedFields).to.include.members(["status", "decidedAt"]);
    expect(await counts()).to.deep.include({ versions: before.versions + 3, audit: before.audit + 3 });
  });

  it("an import and a single write of contradicting accepted rules at once: exactly one rule is accepted", async () => {
    const [single, imported] = await Promise.all([
      t.http
        .post("/api/v1/equivalencies")
        .set(bearer(t.keys.live))
        .send({
          sourceCourseIds: [c["CHEM 1A"], c["MATH 7"]],
          targetInstitutionId: BERKELEY,
          targets: [{ courseId: c["CHEM 3A"] }],
          status: "accepted",
        }),
      upload(
        [
          "source_institution,source_course_1,source_course_2,target_institution,target_course_1,status",
          `${SMC},MATH 7,CHEM 1A,${BERKELEY},MATH 1A,accepted`,
        ].join("\n"),
      ),
    ]);
    await expectContract(imported, 200);
    const rules = await t.database.prisma.equivalency.findMany({
      where: { sourceSetKey: [c["CHEM 1A"], c["MATH 7"]].sort().join(" ") },
    });
    expect(rules.filter((rule) => rule.status === "accepted")).to.have.length(1);
    if (single.status === 201) {
      expect(imported.body.summary).to.deep.include({ created: 0, conflict: 1 });
      expect(imported.body.issues[0].message).to.contain(single.body.data.id);
    } else {
      await expectContract(single, 409);
      expect(imported.body.summary).to.deep.include({ created: 1, conflict: 0 });
    }
  });

  describe("decided before its transaction, written if what it read still stands", () => {
    const caller = importingKey("key_import");
    /** Courses of this describe's own: HIST 1–3 at SMC, HIST 10–11 at Berkeley. */
    let h: Record<string, string>;
    before(async () => {
      const course = (institutionId: string, code: string) => lowerCourse(institutionId, code, "History");
      h = await postCourses(t, [
        course(SMC, "HIST 1"),
        course(SMC, "HIST 2"),
        course(SMC, "HIST 3"),
        course(BERKELEY, "HIST 10"),
        course(BERKELEY, "HIST 11"),
      ]);
    });

    /**
     * The import service over the app's database, with `duringDecision` run once, after the
     * import first read the stored rules and before it decided them; how often it read them,
     * outside its transaction and inside.
     */
    function importWith(duringDecision: () => Promise<void>) {
      const repositories = repositoriesOf(t.database);
      const reads = { outside: 0, inside: 0 };
      let pending: (() => Promise<void>) | undefined = duringDecision;
      const watch = (imports: typeof repositories.equivalencyImports, where: keyof typeof reads) => ({
        ...imports,
        async findByIdentitiesOrAcceptedInSets(...args: Parameters<typeof imports.findByIdentitiesOrAcceptedInSets>) {
          reads[where] += 1;
          const found = await imports.findByIdentitiesOrAcceptedInSets(...args);
          const run = pending;
          pending = undefined;
          if (run) await run();
          return found;
        },
      });
      const service = createEquivalencyImportService({
        ...repositories,
        equivalencyImports: watch(repositories.equivalencyImports, "outside"),
        transaction: (work, options) =>
          repositories.transaction(
            (writes) => work({ ...writes, equivalencyImports: watch(writes.equivalencyImports, "inside") }),
            options,
          ),
      });
      return {
        reads,
        run: (csv: string) =>
          service.importEquivalencies({ ...caller, organizationId: t.organizationId }, csv, { dryRun: false }),
      };
    }
    const postRule = async (sourceCode: string, targetCode: string) => {
      const single = await t.http
        .post("/api/v1/equivalencies")
        .set(bearer(t.keys.live))
        .send({
          sourceCourseIds: [h[sourceCode]],
          targetInstitutionId: BERKELEY,
          targets: [{ courseId: h[targetCode] }],
          status: "accepted",
        });
      await expectContract(single, 201);
      return single.body.data.id as string;
    };

    it("a contradicting rule accepted while the file was decided: the import decides again under the locks and stores its row as conflict", async () => {
      let accepted = "";
      // Served while the import is being decided: on the embedded database this write could not run
      // (and the test would hang) if the import held the one connection in its transaction.
      const { reads, run } = importWith(async () => {
        accepted = await postRule("HIST 1", "HIST 10");
      });
      const result = await run([HEADER, `${SMC},HIST 1,${BERKELEY},HIST 11,,accepted`].join("\n"));
      expect(reads).to.deep.equal({ outside: 1, inside: 1 });
      expect(result.summary).to.deep.include({ created: 0, conflict: 1 });
      expect(result.issues[0].message).to.contain(accepted);
      const rules = await t.database.prisma.equivalency.findMany({ where: { sourceCourseId: h["HIST 1"] } });
      expect(rules.filter((rule) => rule.status === "accepted").map((rule) => rule.id)).to.deep.equal([accepted]);
    });

    it("nothing it read changed: the decisions made before the transaction are written, the stored rules read once", async () => {
      // Another rule set's write changes nothing this file read.
      const { reads, run } = importWith(async () => {
        await postRule("HIST 2", "HIST 10");
      });
      const result = await run([HEADER, `${SMC},HIST 3,${BERKELEY},HIST 10,,accepted`].join("\n"));
      expect(reads).to.deep.equal({ outside: 1, inside: 0 });
      expect(result.summary).to.deep.include({ created: 1, conflict: 0, rejected: 0 });
      const [rule] = await t.database.prisma.equivalency.findMany({ where: { sourceCourseId: h["HIST 3"] } });
      expect(rule).to.deep.include({ status: "accepted", targetCourseId: h["HIST 10"], version: 1 });
      expect(await t.database.prisma.equivalencyVersion.count({ where: { equivalencyId: rule.id } })).to.equal(1);
    });
  });

  describe("written in chunks, each its own transaction (the embedded database's import)", () => {
    const caller = importingKey("key_chunks");
    /** Courses of this describe's own (each test its own source courses): PHIL 1–7 at SMC, PHIL 10–12 at Berkeley. */
    let p: Record<string, string>;
    before(async () => {
      const course = (institutionId: string, code: string) => lowerCourse(institutionId, code, "Philosophy");
      p = await postCourses(t, [
        ...[1, 2, 3, 4, 5, 6, 7].map((n) => course(SMC, `PHIL ${n}`)),
        ...["PHIL 10", "PHIL 11", "PHIL 12"].map((code) => course(BERKELEY, code)),
      ]);
    });

    /**
     * The import service over the app's database writing `chunkRows` rows a transaction, with
     * `between(n)` run after the n-th transaction committed (outside any), and `fail(n)` able to
     * refuse the n-th before it starts.
     */
    function chunkedImport(options: { between?: (n: number) => Promise<void>; fail?: (n: number) => boolean }) {
      const repositories = repositoriesOf(t.database);
      let transactions = 0;
      const service = createEquivalencyImportService({
        ...repositories,
        chunkRows: 2,
        transaction: async (work, transactionOptions) => {
          const n = ++transactions;
          if (options.fail?.(n)) throw new Error(`transaction ${n} refused by the test`);
          const done = await repositories.transaction(work, transactionOptions);
          await options.between?.(n);
          return done;
        },
      });
      return {
        transactions: () => transactions,
        run: (csv: string, dryRun = false) =>
          service.importEquivalencies({ ...caller, organizationId: t.organizationId }, csv, { dryRun }),
      };
    }
    const rulesFrom = (...codes: string[]) =>
      t.database.prisma.equivalency.findMany({
        where: { sourceCourseId: { in: codes.map((code) => p[code]) } },
        orderBy: { createdAt: "asc" },
      });
    /** The same message whoever wrote it: a dry run's words and rule ids are its own. */
    const plain = (issues: { row: number; column: string | null; message: string }[]) =>
      issues.map((issue) => ({
        ...issue,
        message: issue.message.replace("would be stored", "stored").replace(/\beq_\w+/g, "eq_…"),
      }));

    it("decides every row as the whole file would (a dry run's counts and issues), across chunks, one transaction per chunk, rules of earlier chunks named by row", async () => {
      const csv = [
        HEADER,
        `${SMC},PHIL 1,${BERKELEY},PHIL 10,,accepted`,
        `${SMC},PHIL 2,${BERKELEY},PHIL 11,,pending`,
        // Chunk 2: contradicts row 1 (chunk 1), then repeats row 2.
        `${SMC},PHIL 1,${BERKELEY},PHIL 11,,accepted`,
        `${SMC},PHIL 2,${BERKELEY},PHIL 11,,pending`,
        // Chunk 3: an unknown course, then a new rule.
        `${SMC},PHIL 99,${BERKELEY},PHIL 10,,accepted`,
        `${SMC},PHIL 3,${BERKELEY},PHIL 12,,accepted`,
      ].join("\n");
      const preview = await chunkedImport({}).run(csv, true);
      const before = await counts();
      const chunked = chunkedImport({});
      const result = await chunked.run(csv);
      expect(chunked.transactions()).to.equal(3);
      expect(result.summary).to.deep.equal({
        received: 6,
        created: 3,
        updated: 0,
        unchanged: 1,
        conflict: 1,
        rejected: 1,
      });
      expect(result.summary).to.deep.equal(preview.summary);
      expect(plain(result.issues)).to.deep.equal(plain(preview.issues));
      const [first] = await rulesFrom("PHIL 1");
      expect(result.issues.find((issue) => issue.row === 3)?.message).to.equal(
        `ambiguous with the accepted rule of row 1 (${first.id}): stored as conflict`,
      );
      // Each written equivalency (the conflict's too) has its version and its event.
      expect(await counts()).to.deep.include({
        equivalencies: before.equivalencies + 4,
        versions: before.versions + 4,
        events: before.events + 4,
      });
    });

    it("other requests are served between chunks, and see the chunks written so far", async () => {
      const seen: number[] = [];
      const chunked = chunkedImport({
        // On the embedded database this request could not be answered (and the test would hang) if the
        // import still held the one connection.
        between: async () => {
          const listed = await t.http.get(`/api/v1/equivalencies?sourceCourse=${p["PHIL 4"]}`).set(bearer(t.keys.live));
          await expectContract(listed, 200);
          seen.push(listed.body.data.length);
        },
      });
      const csv = [
        HEADER,
        ...["PHIL 10", "PHIL 11", "PHIL 12"].map((target) => `${SMC},PHIL 4,${BERKELEY},${target},,pending`),
      ];
      const result = await chunked.run(csv.join("\n"));
      expect(result.summary).to.deep.include({ created: 3 });
      expect(seen).to.deep.equal([2, 3]);
    });

    it("a failure leaves whole chunks written; importing the file again completes it, the written rows unchanged", async () => {
      const csv = [
        HEADER,
        `${SMC},PHIL 5,${BERKELEY},PHIL 10,,accepted`,
        `${SMC},PHIL 6,${BERKELEY},PHIL 10,,accepted`,
        `${SMC},PHIL 7,${BERKELEY},PHIL 10,,accepted`,
      ].join("\n");
      const before = await counts();
      let failure: unknown;
      await chunkedImport({ fail: (n) => n === 2 })
        .run(csv)
        .catch((error) => {
          failure = error;
        });
      expect(String(failure)).to.contain("transaction 2 refused by the test");
      const written = await rulesFrom("PHIL 5", "PHIL 6", "PHIL 7");
      expect(written.map((rule) => rule.sourceCourseId)).to.deep.equal([p["PHIL 5"], p["PHIL 6"]]);
      expect(await counts()).to.deep.include({ versions: before.versions + 2, events: before.events + 2 });
      const again = await chunkedImport({}).run(csv);
      expect(again.summary).to.deep.include({ created: 1, unchanged: 2, conflict: 0, rejected: 0 });
      const completed = await rulesFrom("PHIL 5", "PHIL 6", "PHIL 7");
      expect(completed.map((rule) => [rule.sourceCourseId, rule.status, rule.version])).to.deep.equal(
        ["PHIL 5", "PHIL 6", "PHIL 7"].map((code) => [p[code], "accepted", 1]),
      );
      expect(await counts()).to.deep.include({ versions: before.versions + 3, events: before.events + 3 });
    });
  });

  it("an import that writes 1,000 rules or more refreshes the planner's statistics of the equivalencies, a chunked one before it starts too (the embedded database has no autovacuum)", async () => {
    const analyzed = async () =>
      (
        await t.database.prisma.$queryRawUnsafe<{ count: bigint }[]>(
          "SELECT analyze_count AS count FROM pg_stat_user_tables WHERE relname = 'equivalencies'",
        )
      )[0].count;
    await t.database.prisma.$executeRawUnsafe(
      `INSERT INTO courses (id, environment, institution_id, code, code_key, title, credits, credit_unit, level, created_at, updated_at)
       SELECT 'crs_bulk_' || n, 'live', $1, 'BULK ' || n, 'BULK ' || n, 'Bulk course ' || n, 3, 'semester', 'lower', now(), now()
       FROM generate_series(0, 1000) AS n`,
      SMC,
    );
    const rows = Array.from({ length: 1_001 }, (_, n) => `${SMC},BULK ${n},${BERKELEY},BULK 1XX,,pending`);
    const before = await analyzed();
    const small = await upload([HEADER, rows[0]].join("\n"));
    const written = await counts();
    expect(small.body.summary).to.deep.include({ created: 1 });
    expect(await analyzed()).to.equal(before);
    const large = await upload([HEADER, ...rows].join("\n"));
    await expectContract(large, 200);
    expect(large.body.summary).to.deep.include({ received: 1_001, created: 1_000, unchanged: 1 });
    // Written in chunks on the embedded database, in one transaction on PostgreSQL: each rule with its version, event and audit entry.
    expect(await counts()).to.deep.equal({
      equivalencies: written.equivalencies + 1_000,
      versions: written.versions + 1_000,
      events: written.events + 1_000,
      audit: written.audit + 1_000,
    });
    // On PostgreSQL once, after its one transaction; on the embedded database (in chunks) before its
    // first chunk too.
    expect(await analyzed()).to.equal(before + (t.database.kind === "embedded" ? 2n : 1n));
  });
});
