// The equivalencies service's write rules (updateEquivalency: status
// transitions, If-Match, lost races, the ambiguity check), against in-memory
// fakes of its repositories: no database, so each rule is seen on its own.
import { expect } from "chai";
import type { Equivalency } from "../../generated/prisma/client.ts";
import {
  ConflictError,
  InvalidTransitionError,
  NotStewardError,
  PreconditionFailedError,
  RuleOverlapError,
  type ProblemError,
} from "../../src/kernel/errors.ts";
import type { Repositories, TransactionRepositories } from "../../src/repositories/index.ts";
import type {
  EquivalenciesRepository,
  EquivalencyChange,
  ExpandedEquivalency,
  OverlappingRule,
} from "../../src/repositories/equivalencies.ts";
import type { OutboxRepository } from "../../src/repositories/outbox.ts";
import type { StewardshipRepository } from "../../src/repositories/stewardship.ts";
import { createEquivalenciesService, ifMatchSatisfied } from "../../src/services/equivalencies.ts";
import type { PendingEvent } from "../../src/kernel/events.ts";
import { SANDBOX_CALLER } from "../helpers/services.ts";

const caller = SANDBOX_CALLER;

const NOW = new Date("2026-01-02T03:04:05.000Z");
const CREATED = new Date("2025-12-01T00:00:00.000Z");

/** The rule fields every equivalency event carries, for the stored() record unchanged. */
const RULE_FIELDS = {
  sourceCourseIds: ["crs_1"],
  targets: [{ courseId: null, code: "MATH 1", credits: null }],
  kind: "equivalent" as const,
  generalEducationArea: null,
  minimumGrade: null,
  effectiveFrom: null,
  effectiveUntil: null,
  priority: 0,
  awardedCredits: 5,
  awardedCreditUnit: "semester" as const,
};

function stored(fields: Partial<Equivalency> = {}): Equivalency {
  return {
    id: "eq_1",
    environment: "sandbox",
    sourceCourseId: "crs_1",
    targetInstitutionId: "inst_2",
    targetCourseId: null,
    targetCode: "MATH 1",
    targetKey: "code:MATH 1",
    status: "pending",
    decidedBy: null,
    decidedAt: null,
    policyBasis: null,
    version: 4,
    provenance: "direct",
    datasetVersionId: null,
    inLatestDataset: false,
    organizationId: "org_1",
    createdAt: CREATED,
    updatedAt: CREATED,
    ...RULE_FIELDS,
    sourceSetKey: "crs_1",
    sourceCourseSets: [["crs_1"]],
    sourceSetKeys: ["crs_1"],
    anySetCourseIds: ["crs_1"],
    targetChoice: "all",
    ...fields,
  };
}

/** One equivalency in memory; what the service wrote is kept for the test to read. */
function fakeStore(
  initial: Equivalency,
  options: { stewarded?: boolean; racesToLose?: number; acceptedOverlapping?: OverlappingRule[] } = {},
) {
  let current = initial;
  let racesToLose = options.racesToLose ?? 0;
  const written = {
    changes: [] as EquivalencyChange[],
    versions: [] as { version: number; changedFields: string[] }[],
    events: [] as PendingEvent[],
    clearedRequests: [] as string[],
    transactions: 0,
    totalsForgotten: 0,
    locks: [] as string[],
  };
  const sourceCourse = {
    id: "crs_1",
    code: "MATH 1A",
    institutionId: "inst_1",
    credits: 5,
    creditUnit: "quarter",
    updatedAt: CREATED,
    institution: { id: "inst_1" },
  };
  const expanded = (): ExpandedEquivalency =>
    ({
      ...current,
      sourceCourse,
      sourceCourses: [sourceCourse],
      sourceCourseSetCourses: [[sourceCourse]],
      targetInstitution: { id: "inst_2" },
      targetCourse: null,
    }) as unknown as ExpandedEquivalency;
  const equivalencies = {
    findByIdForUpdate: async (environment: string, id: string) =>
      environment === current.environment && id === current.id ? current : null,
    findExpandedWritten: async () => expanded(),
    findIdByTarget: async () => null,
    findRuleReferences: async () => ({
      sources: new Map([["crs_1", sourceCourse]]),
      institution: { id: "inst_2" },
      targetCourses: new Map(),
    }),
    lockRuleSets: async (environment: string, institutionId: string, sourceSetKeys: string[]) =>
      void written.locks.push(...sourceSetKeys.map((key) => `${environment}:${institutionId}:${key}`)),
    findAcceptedOverlapping: async () => options.acceptedOverlapping ?? [],
    findCoursesByCode: async () => new Map(),
    async updateIfVersion(_id: string, expectedVersion: number, change: EquivalencyChange) {
      if (racesToLose > 0) {
        racesToLose -= 1;
        return false;
      }
      if (expectedVersion !== current.version) return false;
      written.changes.push(change);
      current = { ...current, ...change };
      return true;
    },
    insertVersion: async (record: { version: number; changedFields: string[] }) =>
      void written.versions.push({ version: record.version, changedFields: record.changedFields }),
    forgetTotals: () => void (written.totalsForgotten += 1),
  } as unknown as EquivalenciesRepository;
  const stewardship = {
    stewardedAmong: async (_organizationId: string, _environment: string, ids: string[]) =>
      new Set(options.stewarded === false ? [] : ids),
  } as unknown as StewardshipRepository;
  const outbox = {
    recordEvents: async (_environment: string, events: PendingEvent[]) => void written.events.push(...events),
  } as unknown as OutboxRepository;
  // An accepted rule clears the requests for its source courses (src/services/rules/evaluation-service.ts).
  const equivalencyRequests = {
    clear: async (_environment: string, _target: string, ids: readonly string[]) =>
      void written.clearedRequests.push(...ids),
  };
  const inTransaction = {
    equivalencies,
    stewardship,
    outbox,
    equivalencyRequests,
  } as unknown as TransactionRepositories;
  const repositories = {
    equivalencies,
    stewardship,
    transaction: async <T>(work: (repositories: TransactionRepositories) => Promise<T>) => {
      written.transactions += 1;
      return work(inTransaction);
    },
  } as unknown as Pick<Repositories, "equivalencies" | "stewardship" | "transaction" | "users" | "credentials">;
  return { service: createEquivalenciesService({ ...repositories, now: () => NOW }), written };
}

async function problemOf(promise: Promise<unknown>): Promise<ProblemError> {
  const error = await promise.then(
    () => expect.fail("the update succeeded"),
    (thrown: unknown) => thrown,
  );
  return error as ProblemError;
}

describe("equivalencies service (updateEquivalency)", () => {
  it("moves pending -> accepted: version + 1, decidedAt set, one version recorded and one equivalency.updated event", async () => {
    const { service, written } = fakeStore(stored());
    const outcome = await service.updateEquivalency(caller, "eq_1", { status: "accepted", note: "reviewed" });
    expect(outcome).to.include({ etag: '"eq_1.v5"', changed: true });
    expect(written.changes).to.have.length(1);
    expect(written.changes[0]).to.include({ status: "accepted", version: 5, decidedAt: NOW, updatedAt: NOW });
    expect(written.versions).to.deep.equal([{ version: 5, changedFields: ["status", "decidedAt"] }]);
    expect(written.events).to.deep.equal([
      {
        type: "equivalency.updated",
        data: {
          equivalencyId: "eq_1",
          version: 5,
          previousStatus: "pending",
          status: "accepted",
          changedFields: ["status", "decidedAt"],
          ...RULE_FIELDS,
          sourceCourseSets: [["crs_1"]],
          targetChoice: "all",
        },
      },
    ]);
    expect(written.totalsForgotten).to.equal(1);
    expect(written.clearedRequests).to.deep.equal(["crs_1"]);
  });

  it("refuses accepted -> pending with invalid-transition naming what is allowed, writing nothing", async () => {
    const { service, written } = fakeStore(stored({ status: "accepted", decidedAt: CREATED }));
    const error = await problemOf(service.updateEquivalency(caller, "eq_1", { status: "pending" }));
    expect(error).to.be.instanceOf(InvalidTransitionError);
    expect(error.message).to.equal(
      "The status transition accepted -> pending is not allowed (allowed from accepted: conflict).",
    );
    expect(written.changes).to.deep.equal([]);
    expect(written.events).to.deep.equal([]);
  });

  it("conflict -> pending clears decidedAt", async () => {
    const { service, written } = fakeStore(stored({ status: "conflict", decidedAt: CREATED }));
    await service.updateEquivalency(caller, "eq_1", { status: "pending" });
    expect(written.changes[0]).to.include({ status: "pending", decidedAt: null });
    expect(written.versions[0].changedFields).to.deep.equal(["status", "decidedAt"]);
  });

  it("a PATCH that changes nothing records no version, no event, and answers the current ETag", async () => {
    const { service, written } = fakeStore(stored());
    const outcome = await service.updateEquivalency(caller, "eq_1", { status: "pending" });
    expect(outcome).to.include({ etag: '"eq_1.v4"', changed: false });
    expect(written.changes).to.deep.equal([]);
    expect(written.events).to.deep.equal([]);
    expect(written.totalsForgotten).to.equal(0);
  });

  it("a stale If-Match is precondition-failed before anything is written", async () => {
    const { service, written } = fakeStore(stored());
    const error = await problemOf(service.updateEquivalency(caller, "eq_1", { status: "accepted" }, '"eq_1.v3"'));
    expect(error).to.be.instanceOf(PreconditionFailedError);
    expect(error.message).to.equal('If-Match "eq_1.v3" does not match the current ETag "eq_1.v4".');
    expect(written.changes).to.deep.equal([]);
  });

  it("If-Match accepts the current tag among several, weak, or *", async () => {
    for (const header of ['"eq_1.v1", W/"eq_1.v4"', "*"]) {
      const { service, written } = fakeStore(stored());
      await service.updateEquivalency(caller, "eq_1", { status: "accepted" }, header);
      expect(written.changes, header).to.have.length(1);
    }
  });

  it("a write that loses a race under If-Match is precondition-failed, not retried", async () => {
    const { service, written } = fakeStore(stored(), { racesToLose: 1 });
    const error = await problemOf(service.updateEquivalency(caller, "eq_1", { status: "accepted" }, '"eq_1.v4"'));
    expect(error).to.be.instanceOf(PreconditionFailedError);
    expect(error.message).to.equal("The equivalency changed since the ETag in If-Match was issued.");
    expect(written.transactions).to.equal(1);
  });

  it("without If-Match a lost race is retried in a new transaction, and given up after five attempts", async () => {
    const retried = fakeStore(stored(), { racesToLose: 2 });
    await retried.service.updateEquivalency(caller, "eq_1", { status: "accepted" });
    expect(retried.written.transactions).to.equal(3);
    expect(retried.written.changes).to.have.length(1);

    const givenUp = fakeStore(stored(), { racesToLose: 5 });
    const error = await problemOf(givenUp.service.updateEquivalency(caller, "eq_1", { status: "accepted" }));
    expect(error).to.be.instanceOf(ConflictError);
    expect(givenUp.written.transactions).to.equal(5);
    expect(givenUp.written.changes).to.deep.equal([]);
  });

  it("an organization that does not steward the target institution is refused before If-Match is looked at", async () => {
    const { service, written } = fakeStore(stored(), { stewarded: false });
    const error = await problemOf(service.updateEquivalency(caller, "eq_1", { status: "accepted" }, '"eq_1.v1"'));
    expect(error).to.be.instanceOf(NotStewardError);
    expect(written.changes).to.deep.equal([]);
  });
});

describe("equivalencies service (the ambiguity check on accepting a rule)", () => {
  const other = (fields: Partial<OverlappingRule> = {}): OverlappingRule => ({
    id: "eq_other",
    kind: "equivalent",
    generalEducationArea: null,
    targets: [{ courseId: null, code: "MATH 1", credits: null }],
    minimumGrade: null,
    awardedCredits: 5,
    targetChoice: "all",
    ...fields,
  });

  it("accepting beside an accepted rule with another outcome is ambiguous-rule naming it, after taking the set's lock", async () => {
    const { service, written } = fakeStore(stored(), { acceptedOverlapping: [other({ minimumGrade: "C" })] });
    const error = await problemOf(service.updateEquivalency(caller, "eq_1", { status: "accepted" }));
    expect(error).to.be.instanceOf(RuleOverlapError);
    expect(error.slug).to.equal("ambiguous-rule");
    expect(error.extensions.conflictingEquivalencyIds).to.deep.equal(["eq_other"]);
    expect(written.locks).to.deep.equal(["sandbox:inst_2:crs_1"]);
    expect(written.changes).to.deep.equal([]);
  });

  it("accepting beside an accepted rule with the same outcome is duplicate-rule", async () => {
    const { service, written } = fakeStore(stored(), { acceptedOverlapping: [other()] });
    const error = await problemOf(service.updateEquivalency(caller, "eq_1", { status: "accepted" }));
    expect(error.slug).to.equal("duplicate-rule");
    expect(error.extensions.conflictingEquivalencyIds).to.deep.equal(["eq_other"]);
    expect(written.changes).to.deep.equal([]);
  });

  it("marking a rule conflict, or changing only who decided, is not checked", async () => {
    const conflicting = fakeStore(stored({ status: "accepted", decidedAt: CREATED }), {
      acceptedOverlapping: [other({ kind: "elective" })],
    });
    await conflicting.service.updateEquivalency(caller, "eq_1", { status: "conflict" });
    await conflicting.service.updateEquivalency(caller, "eq_1", { decidedBy: "Registrar" });
    expect(conflicting.written.changes).to.have.length(2);
    expect(conflicting.written.locks).to.deep.equal([]);
  });

  it("changing an accepted rule's minimum grade is checked against the others", async () => {
    const { service } = fakeStore(stored({ status: "accepted", decidedAt: CREATED }), {
      acceptedOverlapping: [other({ minimumGrade: "C" })],
    });
    const error = await problemOf(service.updateEquivalency(caller, "eq_1", { minimumGrade: "C" }));
    expect(error.slug).to.equal("duplicate-rule");
  });
});

describe("ifMatchSatisfied (RFC 9110 If-Match)", () => {
  it("matches the exact tag, a weak form of it, or *, and nothing else", () => {
    expect(ifMatchSatisfied('"eq_1.v4"', '"eq_1.v4"')).to.equal(true);
    expect(ifMatchSatisfied('W/"eq_1.v4"', '"eq_1.v4"')).to.equal(true);
    expect(ifMatchSatisfied(' "x" , "eq_1.v4" ', '"eq_1.v4"')).to.equal(true);
    expect(ifMatchSatisfied("*", '"eq_1.v4"')).to.equal(true);
    expect(ifMatchSatisfied('"eq_1.v3"', '"eq_1.v4"')).to.equal(false);
    expect(ifMatchSatisfied("eq_1.v4", '"eq_1.v4"')).to.equal(false);
  });
});
