// The records the fuzzer's valid requests name, so that they reach past the
// 404s and the "no such institution" 400s into the code that does the work.
import fc from "fast-check";
import { bearer, type TestApp } from "../helpers/app.ts";
import { COURSES, INSTITUTIONS, loadInstitutions } from "../helpers/fixtures.ts";
import type { Receiver } from "../helpers/receiver.ts";
import type { OperationModel, RequestHints } from "./requests.ts";

export interface Records {
  institutions: string[];
  courses: string[];
  /** Each has versions 1 and 2. */
  equivalencies: string[];
  datasets: string[];
  /** Endpoints the fuzzer may read, change and rotate. */
  webhooks: string[];
  /** The endpoint on the local receiver: test events go there, and its deliveries exist. */
  receiverWebhook: string;
  deliveries: string[];
  /** Endpoints and keys there only to be deleted. */
  doomedWebhooks: string[];
  doomedKeys: string[];
}

const EVERY_EVENT = ["equivalency.created", "equivalency.updated", "course.updated", "dataset.published"];

export async function seedRecords(t: TestApp, receiver: Receiver): Promise<Records> {
  const call = async (method: "post" | "patch", path: string, body: object, status: number) => {
    const response = await t.http[method](`/api/v1${path}`).set(bearer(t.keys.live)).send(body);
    if (response.status !== status)
      throw new Error(`seeding ${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.data;
  };
  await loadInstitutions(t.database.prisma, "live");
  const courses: { id: string; code: string }[] = await call(
    "post",
    "/courses",
    [COURSES["CS 55"], COURSES["MATH 7"], COURSES["CS 61B"], { ...COURSES["MATH 31A"], cipCode: undefined }],
    201,
  );
  const course = (code: string) => courses.find((c) => c.code === code)!.id;
  const equivalencies = [
    await call(
      "post",
      "/equivalencies",
      { sourceCourseId: course("CS 55"), targetInstitutionId: "inst_110635", targetCourseId: course("CS 61B") },
      201,
    ),
    await call(
      "post",
      "/equivalencies",
      { sourceCourseId: course("MATH 7"), targetInstitutionId: "inst_110662", targetCourseId: course("MATH 31A") },
      201,
    ),
    await call(
      "post",
      "/equivalencies",
      { sourceCourseId: course("MATH 7"), targetInstitutionId: "inst_110635", targetCode: "MATH 1XX" },
      201,
    ),
  ].map((equivalency: { id: string }) => equivalency.id);
  for (const id of equivalencies)
    await call("patch", `/equivalencies/${id}`, { status: "conflict", note: "Seeded second version." }, 200);
  const dataset = await call("post", "/datasets", { label: "Fuzz baseline" }, 201);
  const webhook = (description: string, url: string) =>
    call("post", "/webhooks", { url, events: EVERY_EVENT, description }, 201);
  const webhooks = [1, 2, 3].map((n) => webhook("fuzz", `https://hooks.example.edu/fuzz/${n}`));
  const doomedWebhooks = [1, 2, 3, 4, 5].map((n) => webhook("doomed", `https://hooks.example.edu/doomed/${n}`));
  const receiverWebhook = (await webhook("receiver", receiver.url("/fuzz"))).id as string;
  const deliveries = [
    await call("post", `/webhooks/${receiverWebhook}/test`, {}, 200),
    await call("post", `/webhooks/${receiverWebhook}/test`, {}, 200),
  ];
  const doomedKeys = await Promise.all(
    [1, 2, 3, 4, 5].map(
      async (n) =>
        (
          await t.app.context.services.keys.issueKey({
            organizationId: t.organizationId,
            environment: "live",
            name: `doomed ${n}`,
          })
        ).view.id,
    ),
  );
  return {
    institutions: INSTITUTIONS.map((institution) => `inst_${institution.ipedsId}`),
    courses: courses.map((c) => c.id),
    equivalencies,
    datasets: [dataset.id],
    webhooks: (await Promise.all(webhooks)).map((w) => w.id),
    receiverWebhook,
    deliveries: deliveries.map((d) => d.id),
    doomedWebhooks: (await Promise.all(doomedWebhooks)).map((w) => w.id),
    doomedKeys,
  };
}

/** Hints that make valid requests name the seeded records most of the time, and anything the schema allows otherwise. */
export function recordHints(records: Records): RequestHints {
  return {
    member: (name, fromSchema) => mostly(referencesNamed(records, name), fromSchema),
    knownPaths: (operation) => knownPaths(records, operation),
  };
}

function mostly<T>(known: T[], fromSchema: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return known.length
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fromSchema })
    : fromSchema;
}

function referencesNamed(records: Records, name: string): unknown[] {
  if (["institutionId", "targetInstitutionId", "institution", "targetInstitution"].includes(name))
    return records.institutions;
  if (["sourceCourseId", "targetCourseId", "sourceCourse"].includes(name)) return records.courses;
  if (name === "If-Match") return ["*"];
  return [];
}

function knownPaths(records: Records, operation: OperationModel): Record<string, unknown>[] {
  const ids = (list: string[]) => list.map((id) => ({ id }));
  switch (operation.operationId) {
    case "getInstitution":
      return ids(records.institutions);
    case "getCourse":
      return ids(records.courses);
    case "getEquivalency":
    case "updateEquivalency":
    case "listEquivalencyVersions":
      return ids(records.equivalencies);
    case "getEquivalencyVersion":
      // Beyond the column's 32-bit range too: no such version, a 404 (it once was a 500).
      return records.equivalencies.flatMap((id) =>
        [1, 2, 3, 2_147_483_648, 99_999_999_999, Number.MAX_SAFE_INTEGER].map((version) => ({ id, version })),
      );
    case "getDataset":
    case "listDatasetIssues":
      return ids(records.datasets);
    case "getWebhook":
    case "updateWebhook":
    case "rotateWebhookSecret":
      return ids(records.webhooks);
    case "deleteWebhook":
      return ids(records.doomedWebhooks);
    case "testWebhook":
    case "listWebhookDeliveries":
      return ids([records.receiverWebhook]);
    case "getWebhookDelivery":
    case "redeliverWebhookDelivery":
      return records.deliveries.map((deliveryId) => ({ id: records.receiverWebhook, deliveryId }));
    case "revokeKey":
      return ids(records.doomedKeys);
    default:
      return [];
  }
}
