// One real record behind every path parameter of the API, so that a test can
// address an existing resource of the test organization (live environment).
// Records are made through the services, not HTTP: seeding spends none of a
// rate-limited app's tokens.
import type { TestApp } from "./app.ts";
import { loadInstitutions } from "./fixtures.ts";
import { Receiver } from "./receiver.ts";
import { insertEndpoint } from "./webhooks.ts";
import { institutionId } from "../../src/kernel/ids.ts";

/** Fills a path template of the document ("/webhooks/{id}/deliveries/{deliveryId}") with real ids. */
export type PathFiller = (template: string) => string;

export async function createPathRecords(t: TestApp): Promise<PathFiller> {
  const db = t.database.prisma;
  const credential = await t.app.context.authenticator.authenticate(`Bearer ${t.keys.live}`);
  await loadInstitutions(db, "live");
  const [source, target] = [institutionId("122977"), institutionId("110635")];
  const courses = await t.app.context.services.courses.upsertCourses(credential, [
    { institutionId: source, code: "CS 3", title: "Introduction to Computer Science", credits: 3, level: "lower" },
  ]);
  const course = courses.data[0].id!;
  const equivalency = await t.app.context.services.equivalencies.createEquivalency(credential, {
    sourceCourseId: course,
    targetInstitutionId: target,
    targetCode: "COMPSCI 10",
  });
  if (equivalency.kind !== "created") throw new Error("the equivalency was not created");
  const dataset = await t.app.context.services.datasets.publishDataset(credential, { label: "Path records" });
  // The equivalency's creation and the dataset's publication are events of the change feed.
  const event = await db.outboxEvent.findFirstOrThrow({ where: { environment: "live" }, orderBy: { sequence: "asc" } });
  const key = await t.app.context.services.keys.issueKey({
    organizationId: t.organizationId,
    environment: "live",
    name: "path record",
  });

  const member = await t.app.context.services.users.provisionFederatedUser({
    organizationId: t.organizationId,
    email: "path-record@acme.edu",
    role: "viewer",
  });
  const { client } = await t.app.context.services.oauthClients.createOAuthClient({
    organizationId: t.organizationId,
    environment: "live",
    name: "path record",
  });

  const receiver = await Receiver.start();
  try {
    const webhook = await insertEndpoint(db, t.secrets, {
      organizationId: t.organizationId,
      url: receiver.url("/hook"),
      events: ["course.updated"],
    });
    receiver.expectSecrets("/hook", [webhook.secret]);
    const delivery = await t.app.context.services.webhookDeliveries.testWebhook(credential, webhook.id);
    const ids: Record<string, string> = {
      institutions: source,
      courses: course,
      equivalencies: equivalency.view.id,
      datasets: dataset.id,
      webhooks: webhook.id,
      keys: key.view.id,
      members: member.id,
      "oauth-clients": client.id,
      events: event.id,
    };
    return (template) =>
      template.replace(/\{(\w+)\}/g, (_, name: string) => {
        if (name === "deliveryId") return delivery.id;
        if (name === "version") return "1";
        // The public explorer's paths: /explorer/institutions/{id}/courses, /explorer/agreements/{from}/{to}.
        if (name === "from") return source;
        if (name === "to") return target;
        const collection = template.split("/")[template.startsWith("/explorer/") ? 2 : 1];
        if (name === "id" && ids[collection]) return ids[collection];
        throw new Error(`path-records.ts has no record for {${name}} in ${template}; add one`);
      });
  } finally {
    await receiver.close();
  }
}
