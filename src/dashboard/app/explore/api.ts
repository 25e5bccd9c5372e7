// The public explorer's reads: the API's Explorer operations, which need no credential. Types come
// from the contract (generated/api-types.ts); the calls are plain fetches, so nothing of the
// dashboard's session comes along.
import type { components } from "../../../../generated/api-types.ts";

type Schemas = components["schemas"];
export type Environment = Schemas["Environment"];
export type Institution = Schemas["Institution"];
export type Course = Schemas["Course"];
export type Agreement = Schemas["ExplorerAgreement"];
export type Rule = Schemas["ExplorerRule"];
export type ExplorerCourse = Schemas["ExplorerCourse"];
export type Evaluation = Schemas["ExplorerEvaluation"];
export type EvaluationResult = Schemas["ExplorerEvaluationResult"];
export type EvaluationCourse = Schemas["ExplorerEvaluationCourse"];
export type Environments = Schemas["ExplorerEnvironments"];
export type Grade = Schemas["CourseGrade"];

const ROOT = "/api/v1/explorer";

/** A refusal of the API, with its most useful sentence. */
export class ExplorerError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`${ROOT}${path}`, {
    ...init,
    headers: { Accept: "application/json", ...init?.headers },
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const problem = (body ?? {}) as { detail?: string; title?: string; errors?: { message: string }[] };
    const details = problem.errors?.map((error) => error.message).join("; ");
    const message =
      response.status === 429
        ? "Too many requests from your network just now. Wait a minute and try again."
        : [problem.detail ?? problem.title ?? "Something went wrong.", details].filter(Boolean).join(" ");
    throw new ExplorerError(message, response.status);
  }
  return body as T;
}

const query = (values: Record<string, string | number | undefined>) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== "") params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
};

export const explorerApi = {
  environments: () => call<Environments>("/environments"),
  institutions: (environment: Environment, q: string) =>
    call<{ data: Institution[] }>(`/institutions${query({ environment, q, limit: 8 })}`).then((page) => page.data),
  courses: (environment: Environment, institution: string, q: string) =>
    call<{ data: Course[] }>(
      `/institutions/${encodeURIComponent(institution)}/courses${query({ environment, q, limit: 8 })}`,
    ).then((page) => page.data),
  agreement: (environment: Environment, from: string, to: string) =>
    call<{ data: Agreement }>(
      `/agreements/${encodeURIComponent(from)}/${encodeURIComponent(to)}${query({ environment })}`,
    ).then((answer) => answer.data),
  evaluate: (environment: Environment, body: { from: string; to: string; courses: EvaluationCourse[] }) =>
    call<{ data: Evaluation }>(`/transfer-evaluations${query({ environment })}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then((answer) => answer.data),
};
