// The public transfer explorer (tag Explorer): what a student or an adviser reads without an
// account. Every function reads one environment, named by the request, as the anonymous public
// caller, through the services and repositories the API's own operations use: institutions by name,
// a catalog's courses, the accepted rules in force between two institutions, and an evaluation
// answered in names. Nothing here writes; an evaluation counts no demand (an anonymous caller
// could inflate it at will).
import { publicCaller } from "../auth/credential.ts";
import { ValidationError, type FieldError } from "../kernel/errors.ts";
import type { Repositories } from "../repositories/index.ts";
import type { EquivalenciesService } from "./equivalencies.ts";
import type { InstitutionsService, InstitutionView } from "./institutions.ts";
import type { CoursesService } from "./courses.ts";
import type { TransferEvaluationsService } from "./rules/evaluation-service.ts";
import { agreementRules, type RuleRecord } from "./explorer-agreement.ts";
import {
  evaluationCourse,
  namedResults,
  refusedUnknownCodes,
  type ExplorerCourseInput,
  type GivenCourse,
} from "./explorer-evaluation.ts";
import type { CreditUnit } from "./rules/evaluation-engine.ts";
import type { Environment, Page } from "./types.ts";
import { courseCodeKey as codeKey } from "../views/catalog.ts";

export type { ExplorerCourseInput } from "./explorer-evaluation.ts";

interface Dependencies {
  repositories: Pick<Repositories, "courses" | "institutions" | "equivalencies" | "transferEvaluations">;
  institutions: InstitutionsService;
  courses: CoursesService;
  equivalencies: EquivalenciesService;
  transferEvaluations: TransferEvaluationsService;
  now?: () => Date;
}

export interface ExplorerEvaluationInput {
  from: string;
  to: string;
  asOf?: string;
  courses: ExplorerCourseInput[];
}

const ENVIRONMENTS: Environment[] = ["live", "sandbox"];
/** The agreement is read in pages of the list's largest size. */
const RULES_PAGE = 100;

/** An institution id (`inst_110635`), or an IPEDS unit id (`110635`) standing for it. */
export function institutionIdOf(idOrIpeds: string): string {
  return /^\d{1,12}$/.test(idOrIpeds) ? `inst_${idOrIpeds}` : idOrIpeds;
}

/** "berkeley ca": a last word of two letters after other words is a state code. */
export function institutionQuery(q: string | undefined, state: string | undefined): { q?: string; state?: string } {
  const words = (q ?? "")
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean);
  const last = words.at(-1);
  if (state === undefined && words.length > 1 && last && /^[A-Za-z]{2}$/.test(last)) {
    return { q: words.slice(0, -1).join(" "), state: last };
  }
  return { ...(q === undefined ? {} : { q }), ...(state === undefined ? {} : { state }) };
}

export function createExplorerService(deps: Dependencies) {
  const { repositories, institutions, courses, equivalencies, transferEvaluations } = deps;
  const now = deps.now ?? (() => new Date());
  const today = () => now().toISOString().slice(0, 10);

  function institution(environment: Environment, idOrIpeds: string): Promise<InstitutionView> {
    return institutions.getInstitution(publicCaller(environment), institutionIdOf(idOrIpeds));
  }

  /** The receiving institution's unit: the one most of its courses use (semester without courses). */
  async function unitOf(environment: Environment, institutionId: string): Promise<CreditUnit> {
    const { creditUnit } = await repositories.transferEvaluations.candidates(environment, institutionId, []);
    return (creditUnit ?? "semester") as CreditUnit;
  }

  return {
    async listExplorerEnvironments() {
      const data = await Promise.all(
        ENVIRONMENTS.map(async (environment) => {
          const caller = publicCaller(environment);
          const first = { limit: 1, offset: 0 };
          const [held, accepted] = await Promise.all([
            institutions.listInstitutions(caller, {}, first),
            equivalencies.listEquivalencies(caller, { status: "accepted" }, first),
          ]);
          return { environment, institutions: held.total, acceptedRules: accepted.total };
        }),
      );
      const [live, sandbox] = data;
      const defaultEnvironment: Environment =
        live.acceptedRules === 0 && sandbox.acceptedRules > 0 ? "sandbox" : "live";
      return { data, defaultEnvironment };
    },

    searchExplorerInstitutions(environment: Environment, query: { q?: string; state?: string }, page: Page) {
      return institutions.listInstitutions(publicCaller(environment), institutionQuery(query.q, query.state), page);
    },

    async listExplorerCourses(environment: Environment, idOrIpeds: string, q: string | undefined, page: Page) {
      const { id } = await institution(environment, idOrIpeds);
      return courses.listCourses(publicCaller(environment), { institution: id, ...(q ? { q } : {}) }, page);
    },

    /** Every accepted rule of `to` in force today whose source courses are `from`'s, with its courses named. */
    async getExplorerAgreement(environment: Environment, fromId: string, toId: string) {
      const [from, to] = await Promise.all([institution(environment, fromId), institution(environment, toId)]);
      const asOf = today();
      const caller = publicCaller(environment);
      const filters = { sourceInstitution: from.id, targetInstitution: to.id, status: "accepted" as const, asOf };
      const records: RuleRecord[] = [];
      for (let offset = 0; ; offset += RULES_PAGE) {
        const page = await equivalencies.listExpandedEquivalencies(caller, filters, { limit: RULES_PAGE, offset });
        records.push(...(page.items as RuleRecord[]));
        if (page.items.length < RULES_PAGE) break;
      }
      const [creditUnit, rules] = await Promise.all([
        unitOf(environment, to.id),
        agreementRules(records, (ids) => repositories.courses.findByIds(environment, ids)),
      ]);
      return { from, to, asOf, creditUnit, rules };
    },

    /**
     * "Will my courses transfer?" for the public: the evaluation's rules, answered in names. A course
     * given by code goes to the evaluation by institution and code (and the title the student gave),
     * so the evaluation resolves it as it resolves any code; one the catalog lacks is answered
     * `unknown_course`. An evaluation that refuses such codes instead (an unknown code without
     * unknown-course support is its 400) leaves them to be answered here.
     */
    async createExplorerTransferEvaluation(environment: Environment, input: ExplorerEvaluationInput) {
      const [from, to] = await Promise.all([institution(environment, input.from), institution(environment, input.to)]);
      const given = await resolveCourses(environment, from.id, input.courses);
      const caller = publicCaller(environment);
      const evaluate = (indexes: number[]) =>
        transferEvaluations.createTransferEvaluation(
          caller,
          {
            targetInstitutionId: to.id,
            ...(input.asOf ? { asOf: input.asOf } : {}),
            courses: indexes.map((index) => evaluationCourse(from.id, given[index])),
          },
          { countDemand: false },
        );
      const all = given.map((_, index) => index);
      let evaluated = all;
      let evaluation: Awaited<ReturnType<typeof evaluate>> | null;
      try {
        evaluation = await evaluate(all);
      } catch (error) {
        const refused = refusedUnknownCodes(error, given);
        if (!refused) throw error;
        evaluated = all.filter((index) => !refused.has(index));
        evaluation = evaluated.length > 0 ? await evaluate(evaluated) : null;
      }
      const creditUnit = evaluation?.creditUnit ?? (await unitOf(environment, to.id));
      const named = namedResults(given, evaluated, evaluation, { from, to, creditUnit });
      return { from, to, asOf: input.asOf ?? null, creditUnit, ...named };
    },
  };

  /** The courses given, each with its catalog record when `from`'s catalog has it. */
  async function resolveCourses(
    environment: Environment,
    fromId: string,
    inputs: ExplorerCourseInput[],
  ): Promise<GivenCourse[]> {
    const errors: FieldError[] = [];
    const ids = inputs.flatMap((course) => (course.courseId ? [course.courseId] : []));
    const codes = inputs.flatMap((course) => (course.courseId === undefined && course.code ? [course.code] : []));
    const [byId, byCode] = await Promise.all([
      repositories.courses.findByIds(environment, ids),
      repositories.courses.findByCodeKeys(
        environment,
        codes.map((code) => ({ institutionId: fromId, codeKey: codeKey(code) })),
      ),
    ]);
    const seen = new Map<string, number>();
    const given = inputs.map((course, index): GivenCourse => {
      const at = `/courses/${index}`;
      if (course.courseId !== undefined && course.code !== undefined) {
        errors.push({ pointer: at, message: "give either courseId or code, not both" });
        return { input: course, record: null };
      }
      if (course.courseId === undefined && course.code === undefined) {
        errors.push({ pointer: at, message: "give the course's code (or courseId)" });
        return { input: course, record: null };
      }
      const record =
        course.courseId !== undefined
          ? byId.find((found) => found.id === course.courseId && found.institutionId === fromId)
          : byCode.get(`${fromId}\u0000${codeKey(course.code as string)}`);
      if (course.courseId !== undefined && !record) {
        errors.push({
          pointer: `${at}/courseId`,
          message: `no course with id "${course.courseId}" at the sending institution`,
        });
      }
      const key = record ? record.id : `code:${codeKey(course.code ?? "")}`;
      const first = seen.get(key);
      if (first !== undefined) errors.push({ pointer: at, message: `the same course as /courses/${first}` });
      else seen.set(key, index);
      return {
        input: course,
        record: record
          ? {
              id: record.id,
              code: record.code,
              title: record.title,
              credits: Number(record.credits),
              creditUnit: record.creditUnit as CreditUnit,
            }
          : null,
      };
    });
    if (errors.length > 0) throw ValidationError.of(errors);
    return given;
  }
}

export type ExplorerService = ReturnType<typeof createExplorerService>;
