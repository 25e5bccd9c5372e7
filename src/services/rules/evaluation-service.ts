// "Will my courses transfer?" (POST /transfer-evaluations) and the demand for missing rules
// (GET /equivalency-requests). The service resolves the courses asked about, reads the target
// institution's accepted rules that mention them, applies them with the pure engine
// (./evaluation-engine.ts) and counts the `no_rule` courses as requests. Nothing about the
// person is stored: a repeated identical evaluation from one credential within a UTC day is
// recognised by an HMAC of (credential, day, input), kept until the next day, and counted once.
import crypto from "node:crypto";
import type { Credential } from "../../auth/credential.ts";
import { ValidationError, type FieldError } from "../../kernel/errors.ts";
import type { SecretBox } from "../../kernel/secret-box.ts";
import type { EquivalencyRequestsRepository } from "../../repositories/equivalency-requests.ts";
import type { TransactionRepositories } from "../../repositories/index.ts";
import type {
  EvaluatedCourseRow,
  RuleRow,
  TransferEvaluationsRepository,
} from "../../repositories/transfer-evaluations.ts";
import { courseCodeKey } from "../../views/catalog.ts";
import type { Environment, Page } from "../types.ts";
import {
  evaluateTransfer,
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
}

/** The pointers and messages of the courses that name no course (or name one twice). */
function courseProblems(
  request: EvaluationRequest,
  knownInstitutions: ReadonlySet<string>,
  resolved: readonly (EvaluatedCourseRow | undefined)[],
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  request.courses.forEach((given, index) => {
    const at = `/courses/${index}`;
    if (given.courseId !== undefined && (given.institutionId !== undefined || given.code !== undefined)) {
      errors.push({ pointer: at, message: "give either courseId, or institutionId and code, not both" });
    } else if (given.courseId === undefined && (given.institutionId === undefined || given.code === undefined)) {
      errors.push({ pointer: at, message: "give courseId, or institutionId and code" });
    } else if (given.institutionId !== undefined && !knownInstitutions.has(given.institutionId)) {
      errors.push({ pointer: `${at}/institutionId`, message: `no institution with id "${given.institutionId}"` });
    } else if (!resolved[index]) {
      errors.push(
        given.courseId !== undefined
          ? { pointer: `${at}/courseId`, message: `no course with id "${given.courseId}"` }
          : { pointer: `${at}/code`, message: `no course "${given.code}" at ${given.institutionId}` },
      );
    } else {
      const id = (resolved[index] as EvaluatedCourseRow).id;
      const first = seen.get(id);
      if (first !== undefined) errors.push({ pointer: at, message: `the same course as /courses/${first}` });
      else seen.set(id, index);
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
    sourceCourseCodes: row.sourceCodes ?? {},
    kind: row.kind as RuleKind,
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

/** The request as one canonical text (its members in a fixed order), for the day's fingerprint. */
function canonicalInput(request: EvaluationRequest, courseIds: readonly string[]): string {
  return JSON.stringify([
    request.targetInstitutionId,
    request.asOf ?? null,
    request.courses.map((course, index) => [courseIds[index], course.grade ?? null, course.completedOn ?? null]),
  ]);
}

export function createTransferEvaluationsService(deps: Dependencies) {
  const { transferEvaluations: reads, equivalencyRequests: demand } = deps;
  const now = deps.now ?? (() => new Date());
  const fingerprintKey = deps.secrets.derive("evaluation fingerprints");

  /** Counts the courses no rule covered, once per identical evaluation, credential and day. */
  async function countRequests(
    caller: Credential,
    request: EvaluationRequest,
    courseIds: readonly string[],
    uncovered: readonly string[],
    at: Date,
  ) {
    if (uncovered.length === 0) return;
    const day = at.toISOString().slice(0, 10);
    const fingerprint = crypto
      .createHmac("sha256", fingerprintKey)
      .update(`${caller.environment}\n${caller.id}\n${day}\n${canonicalInput(request, courseIds)}`)
      .digest("base64url");
    await demand.countOncePerDay(fingerprint, day, caller.environment, request.targetInstitutionId, uncovered, at);
  }

  return {
    async createTransferEvaluation(caller: Credential, request: EvaluationRequest) {
      const environment: Environment = caller.environment;
      const institutionIds = [
        request.targetInstitutionId,
        ...request.courses.flatMap((course) => (course.institutionId ? [course.institutionId] : [])),
      ];
      const { institutionIds: known, courses: rows } = await reads.subjects(
        environment,
        [...new Set(institutionIds)],
        request.courses.flatMap((course) => (course.courseId ? [course.courseId] : [])),
        request.courses.flatMap((course) =>
          course.institutionId && course.code
            ? [{ institutionId: course.institutionId, codeKey: courseCodeKey(course.code) }]
            : [],
        ),
      );
      if (!known.has(request.targetInstitutionId)) {
        throw ValidationError.single("/targetInstitutionId", `no institution with id "${request.targetInstitutionId}"`);
      }
      const byId = new Map(rows.map((row) => [row.id, row]));
      const byCode = new Map(rows.map((row) => [`${row.institutionId}\n${row.codeKey}`, row]));
      const resolved = request.courses.map((course) =>
        course.courseId !== undefined
          ? byId.get(course.courseId)
          : byCode.get(`${course.institutionId}\n${courseCodeKey(course.code ?? "")}`),
      );
      const errors = courseProblems(request, known, resolved);
      if (errors.length > 0) throw ValidationError.of(errors);

      const courses: EvaluationCourse[] = request.courses.map((given, index) => {
        const row = resolved[index] as EvaluatedCourseRow;
        return {
          id: row.id,
          code: row.code,
          title: row.title,
          institutionId: row.institutionId,
          credits: Number(row.credits),
          creditUnit: row.creditUnit as CreditUnit,
          grade: given.grade ?? null,
          completedOn: given.completedOn ?? null,
        };
      });
      const courseIds = courses.map((course) => course.id);
      const { rules, creditUnit: unit } = await reads.candidates(environment, request.targetInstitutionId, courseIds);
      const at = now();
      const targetUnit = (unit ?? "semester") as CreditUnit;
      const evaluation = evaluateTransfer({
        targetInstitutionId: request.targetInstitutionId,
        targetUnit,
        rules: rules.map(engineRule),
        courses,
        asOf: request.asOf ?? null,
        today: at.toISOString().slice(0, 10),
      });
      const uncovered = evaluation.results.filter((result) => result.outcome === "no_rule").map((r) => r.courseId);
      await countRequests(caller, request, courseIds, uncovered, at);
      return {
        targetInstitutionId: request.targetInstitutionId,
        asOf: request.asOf ?? null,
        creditUnit: targetUnit,
        results: evaluation.results,
        totals: evaluation.totals,
      };
    },

    async listEquivalencyRequests(caller: Credential, targetInstitutionId: string, page: Page) {
      const result = await demand.listPage(caller.environment, targetInstitutionId, page);
      return {
        ...result,
        items: result.items.map((item) => ({
          targetInstitutionId: item.targetInstitutionId,
          sourceCourseId: item.sourceCourseId,
          sourceCourse: item.sourceCourse
            ? {
                code: item.sourceCourse.code,
                title: item.sourceCourse.title,
                institutionId: item.sourceCourse.institutionId,
              }
            : null,
          requests: item.requests,
          lastRequestedAt: item.lastRequestedAt.toISOString(),
        })),
      };
    },
  };
}

export type TransferEvaluationsService = ReturnType<typeof createTransferEvaluationsService>;

/**
 * The equivalencies service's write path calls this after creating or changing a rule: an
 * `accepted` rule answers the requests for each of its source courses at its target institution,
 * so their counts go (in the rule's transaction).
 */
export async function clearRequestsAnsweredBy(
  writes: Pick<TransactionRepositories, "equivalencyRequests">,
  rule: { environment: Environment; targetInstitutionId: string; status: string; sourceCourseIds: readonly string[] },
): Promise<void> {
  if (rule.status !== "accepted") return;
  await writes.equivalencyRequests.clear(rule.environment, rule.targetInstitutionId, rule.sourceCourseIds);
}
