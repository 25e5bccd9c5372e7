// "Will my courses transfer?" (POST /transfer-evaluations) and the demand for missing rules
// (GET /equivalency-requests). The service resolves the courses asked about (by id, or by any of a
// course's codes; a code the catalog lacks, given with a title, is an unknown course), reads the
// target institution's accepted rules that mention them in any set (and the rules waiting in
// conflict), applies them with the pure engine (./evaluation-engine.ts) and counts the `no_rule`
// and `unknown_course` courses as demand. Nothing about the person is stored: demand is counted
// once per requester (credential, or client address for the public sandbox key), course, target
// institution and UTC day, as keyed hashes, gathered in memory and written in batches
// (./evaluation-demand.ts).
import type { Credential } from "../../auth/credential.ts";
import { ValidationError, type FieldError } from "../../kernel/errors.ts";
import type { SecretBox } from "../../kernel/secret-box.ts";
import type { DemandAsk, EquivalencyRequestsRepository } from "../../repositories/equivalency-requests.ts";
import type { TransactionRepositories } from "../../repositories/index.ts";
import type {
  EvaluatedCourseRow,
  RuleRow,
  TransferEvaluationsRepository,
} from "../../repositories/transfer-evaluations.ts";
import { courseCodeKey } from "../../views/catalog.ts";
import { PUBLIC_SANDBOX_KEY_ID } from "../sandbox.ts";
import type { Environment, Page } from "../types.ts";
import { createDemandBatch, type DemandOptions } from "./evaluation-demand.ts";
import {
  evaluateTransfer,
  ruleSets,
  type CreditUnit,
  type EvaluationCourse,
  type EvaluationRule,
  type Grade,
  type RuleKind,
} from "./evaluation-engine.ts";

export interface EvaluationRequestCourse {
  courseId?: string;
  institutionId?: string;
  code?: string;
  title?: string;
  grade?: Grade;
  completedOn?: string;
}

export interface EvaluationRequest {
  targetInstitutionId: string;
  asOf?: string;
  courses: EvaluationRequestCourse[];
}

interface Dependencies {
  transferEvaluations: TransferEvaluationsRepository;
  equivalencyRequests: EquivalencyRequestsRepository;
  secrets: SecretBox;
  now?: () => Date;
  /** How the demand batch is written (tests: intervalMs 0, no timer). */
  demand?: DemandOptions;
}

/** A course given, resolved: a catalog course, or one the catalog lacks (code and title as given). */
type Resolved = { row: EvaluatedCourseRow } | { unknown: { institutionId: string; code: string; title: string } };

/** Every faulty course at once: the pointers and messages of the courses that name no course (or one twice). */
function courseProblems(
  request: EvaluationRequest,
  knownInstitutions: ReadonlyMap<string, string>,
  resolved: readonly (Resolved | undefined)[],
): FieldError[] {
  const errors: FieldError[] = [];
  if (!knownInstitutions.has(request.targetInstitutionId)) {
    errors.push({
      pointer: "/targetInstitutionId",
      message: `no institution with id "${request.targetInstitutionId}"`,
    });
  }
  const seen = new Map<string, number>();
  request.courses.forEach((given, index) => {
    const at = `/courses/${index}`;
    const found = resolved[index];
    if (given.courseId !== undefined && (given.institutionId !== undefined || given.code !== undefined)) {
      errors.push({ pointer: at, message: "give either courseId, or institutionId and code, not both" });
    } else if (given.courseId === undefined && (given.institutionId === undefined || given.code === undefined)) {
      errors.push({ pointer: at, message: "give courseId, or institutionId and code" });
    } else if (given.institutionId !== undefined && !knownInstitutions.has(given.institutionId)) {
      errors.push({ pointer: `${at}/institutionId`, message: `no institution with id "${given.institutionId}"` });
    } else if (!found) {
      errors.push(
        given.courseId !== undefined
          ? { pointer: `${at}/courseId`, message: `no course with id "${given.courseId}"` }
          : {
              pointer: `${at}/code`,
              message:
                `no course "${given.code}" at ${knownInstitutions.get(given.institutionId as string)} ` +
                "(give its title too to evaluate a course the catalog lacks)",
            },
      );
    } else {
      const key =
        "row" in found ? found.row.id : `${found.unknown.institutionId}\n${courseCodeKey(found.unknown.code)}`;
      const first = seen.get(key);
      if (first !== undefined) errors.push({ pointer: at, message: `the same course as /courses/${first}` });
      else seen.set(key, index);
    }
  });
  return errors;
}

function engineRule(row: RuleRow): EvaluationRule {
  return {
    id: row.id,
    version: row.version,
    targetInstitutionId: row.targetInstitutionId,
    status: row.status,
    sourceCourseIds: row.sourceCourseIds,
    sourceCourseSets: row.sourceCourseSets,
    sourceCourseCodes: row.sourceCodes ?? {},
    kind: row.kind as RuleKind,
    targetChoice: row.targetChoice ?? "all",
    targets: row.targets.map((target) => ({
      courseId: target.courseId ?? null,
      code: target.code ?? null,
      title: target.courseId ? (row.targetTitles?.[target.courseId] ?? null) : null,
      credits: target.credits ?? null,
    })),
    generalEducationArea: row.generalEducationArea,
    minimumGrade: row.minimumGrade,
    effectiveFrom: row.effectiveFrom,
    effectiveUntil: row.effectiveUntil,
    priority: row.priority,
    awardedCredits: row.awardedCredits === null ? null : Number(row.awardedCredits),
    awardedCreditUnit: row.awardedCreditUnit as CreditUnit | null,
  };
}

/**
 * Who asks, for counting demand: the credential, or for the public sandbox key (shared by anyone)
 * the client address.
 */
export function requesterOf(caller: Credential, clientAddress: string | undefined): string {
  return caller.id === PUBLIC_SANDBOX_KEY_ID
    ? `${caller.id}@${clientAddress ?? "unknown"}`
    : `${caller.kind}:${caller.id}`;
}

export function createTransferEvaluationsService(deps: Dependencies) {
  const { transferEvaluations: reads, equivalencyRequests: requests } = deps;
  const now = deps.now ?? (() => new Date());
  const demand = createDemandBatch(requests, deps.secrets.derive("evaluation fingerprints"), deps.demand);

  /** The institutions and courses the request names, each course resolved (undefined: none). */
  async function resolve(environment: Environment, request: EvaluationRequest) {
    const institutionIds = [
      request.targetInstitutionId,
      ...request.courses.flatMap((course) => (course.institutionId ? [course.institutionId] : [])),
    ];
    const subjects = await reads.subjects(
      environment,
      [...new Set(institutionIds)],
      request.courses.flatMap((course) => (course.courseId ? [course.courseId] : [])),
      request.courses.flatMap((course) =>
        course.institutionId && course.code
          ? [{ institutionId: course.institutionId, codeKey: courseCodeKey(course.code) }]
          : [],
      ),
    );
    const byId = new Map(subjects.courses.map((row) => [row.id, row]));
    const resolved = request.courses.map((course): Resolved | undefined => {
      if (course.courseId !== undefined) {
        const row = byId.get(course.courseId);
        return row && { row };
      }
      if (course.institutionId === undefined || course.code === undefined) return undefined;
      const id = subjects.codes.get(`${course.institutionId}\n${courseCodeKey(course.code)}`);
      const row = id === undefined ? undefined : byId.get(id);
      if (row) return { row };
      if (course.title === undefined || !subjects.institutions.has(course.institutionId)) return undefined;
      return { unknown: { institutionId: course.institutionId, code: course.code, title: course.title } };
    });
    return { institutions: subjects.institutions, resolved };
  }

  return {
    /**
     * `countDemand: false` (the public explorer's evaluations) leaves the requested rules' counts
     * alone; `clientAddress` tells the public sandbox key's requesters apart.
     */
    async createTransferEvaluation(
      caller: Credential,
      request: EvaluationRequest,
      options: { countDemand?: boolean; clientAddress?: string } = {},
    ) {
      const environment: Environment = caller.environment;
      const { institutions, resolved } = await resolve(environment, request);
      const errors = courseProblems(request, institutions, resolved);
      if (errors.length > 0) throw ValidationError.of(errors);

      const courses: EvaluationCourse[] = request.courses.map((given, index) => {
        const found = resolved[index] as Resolved;
        const taken = { grade: given.grade ?? null, completedOn: given.completedOn ?? null };
        if ("unknown" in found) {
          const { institutionId, code, title } = found.unknown;
          return {
            id: `?${index}`,
            code,
            title,
            institutionId,
            credits: 0,
            creditUnit: "semester",
            unknown: true,
            ...taken,
          };
        }
        const { row } = found;
        return {
          id: row.id,
          code: row.code,
          title: row.title,
          institutionId: row.institutionId,
          credits: Number(row.credits),
          creditUnit: row.creditUnit as CreditUnit,
          ...taken,
        };
      });
      const known = courses.filter((course) => !course.unknown).map((course) => course.id);
      const { rules, creditUnit: unit } = await reads.candidates(environment, request.targetInstitutionId, known);
      const at = now();
      const targetUnit = (unit ?? "semester") as CreditUnit;
      const evaluation = evaluateTransfer({
        targetInstitutionId: request.targetInstitutionId,
        targetUnit,
        rules: rules.map(engineRule),
        courses,
        asOf: request.asOf ?? null,
        today: at.toISOString().slice(0, 10),
        institutionNames: Object.fromEntries(institutions),
      });
      const asks: Omit<DemandAsk, "fingerprint" | "requester" | "day">[] = [];
      evaluation.results.forEach((result, index) => {
        if (result.outcome !== "no_rule" && result.outcome !== "unknown_course") return;
        const unknown = courses[index].unknown === true;
        asks.push({
          environment,
          targetInstitutionId: request.targetInstitutionId,
          courseKey: unknown ? `${result.institutionId} ${courseCodeKey(result.code)}` : result.courseId,
          sourceCourseId: unknown ? "" : result.courseId,
          institutionId: unknown ? result.institutionId : null,
          code: unknown ? result.code : null,
          title: unknown ? result.title : null,
          at,
        });
      });
      if (options.countDemand !== false) demand.add(asks, requesterOf(caller, options.clientAddress), at);
      return {
        targetInstitutionId: request.targetInstitutionId,
        asOf: request.asOf ?? null,
        creditUnit: targetUnit,
        results: evaluation.results,
        totals: evaluation.totals,
      };
    },

    async listEquivalencyRequests(
      caller: Credential,
      targetInstitutionId: string,
      inCatalog: boolean | undefined,
      page: Page,
    ) {
      // This process's asks are written first, so the list includes them.
      await demand.flush();
      const result = await requests.listPage(caller.environment, targetInstitutionId, inCatalog, page);
      return {
        ...result,
        items: result.items.map((item) => ({
          targetInstitutionId: item.targetInstitutionId,
          sourceCourseId: item.sourceCourseId,
          sourceCourse: item.sourceCourse,
          requests: item.requests,
          distinctRequesters: item.distinctRequesters,
          inCatalog: item.sourceCourseId !== "",
          lastRequestedAt: item.lastRequestedAt.toISOString(),
        })),
      };
    },

    /** Writes the demand gathered in memory (before a list is read elsewhere, and at shutdown). */
    flushDemand: () => demand.flush(),
    /** Stops the demand batch's timer and writes what it holds: when the server stops. */
    closeDemand: () => demand.close(),
  };
}

export type TransferEvaluationsService = ReturnType<typeof createTransferEvaluationsService>;

/**
 * The equivalencies service's write path calls this after creating or changing a rule: an
 * `accepted` rule answers the requests for each course of each of its source course sets at its
 * target institution, so their counts go (in the rule's transaction).
 */
export async function clearRequestsAnsweredBy(
  writes: Pick<TransactionRepositories, "equivalencyRequests">,
  rule: {
    environment: Environment;
    targetInstitutionId: string;
    status: string;
    sourceCourseIds: readonly string[];
    /** The rule's sets as stored (JSON): an array of arrays of course ids. */
    sourceCourseSets?: unknown;
  },
): Promise<void> {
  if (rule.status !== "accepted") return;
  const sets = Array.isArray(rule.sourceCourseSets)
    ? rule.sourceCourseSets.filter((set): set is string[] => Array.isArray(set))
    : undefined;
  const courses = ruleSets({ sourceCourseIds: rule.sourceCourseIds, sourceCourseSets: sets }).flat();
  await writes.equivalencyRequests.clear(rule.environment, rule.targetInstitutionId, courses);
}
