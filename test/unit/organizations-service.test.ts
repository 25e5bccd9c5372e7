// The organizations service's rules (createOrganization, getCurrentOrganization) against an in-memory repository.
import type { TransactionRepositories } from "../../src/repositories/index.ts";
import { expect } from "chai";
import type { Organization } from "../../generated/prisma/client.ts";
import type { OrganizationsRepository } from "../../src/repositories/organizations.ts";
import { createOrganizationsService } from "../../src/services/organizations.ts";
import { rejection } from "../helpers/services.ts";

function memoryOrganizations(grants: { standing: boolean; institutionIds: string[] }) {
  const rows = new Map<string, Organization>();
  const repository: OrganizationsRepository = {
    async create(record) {
      const row: Organization = { ...record, createdAt: new Date("2026-01-01T00:00:00Z") } as Organization;
      rows.set(row.id, row);
      return row;
    },
    async findById(id) {
      return rows.get(id) ?? null;
    },
    async findBySlug(slug) {
      return [...rows.values()].find((row) => row.slug === slug) ?? null;
    },
    async listAll() {
      return [...rows.values()].sort((a, b) => a.slug.localeCompare(b.slug));
    },
    async holdsStandingStewardship() {
      return grants.standing;
    },
    async stewardedInstitutionIdsPage(_organizationId, _environment, page) {
      return {
        items: grants.institutionIds.slice(page.offset, page.offset + page.limit),
        total: grants.institutionIds.length,
        next: null,
      };
    },
  };
  return repository;
}

/** The service over the in-memory repository; its "transaction" runs the work over the same repository. */
function withoutAudit(organizations: OrganizationsRepository) {
  const audit = { appendMany: async () => undefined };
  return createOrganizationsService({
    organizations,
    transaction: (work) => work({ organizations, audit } as unknown as TransactionRepositories),
  });
}

describe("organizations service (getCurrentOrganization, CLI's createOrganization)", () => {
  it("createOrganization names every invalid field, and refuses a taken slug with the existing id", async () => {
    const service = withoutAudit(memoryOrganizations({ standing: false, institutionIds: [] }));
    const invalid = await rejection(service.createOrganization({ slug: "-Bad", name: "  ", source: "fax" as never }));
    expect(invalid.slug).to.equal("validation-failed");
    expect((invalid.extensions.errors as { pointer: string }[]).map((error) => error.pointer)).to.deep.equal([
      "/slug",
      "/name",
      "/source",
    ]);
    const first = await service.createOrganization({ slug: "acme", name: " Acme " });
    expect(first).to.include({ slug: "acme", name: "Acme", source: "direct" });
    const taken = await rejection(service.createOrganization({ slug: "acme", name: "Other" }));
    expect(taken.slug).to.equal("conflict");
    expect(taken.extensions).to.deep.equal({ existingId: first.id });
  });

  it("getOrganizationBySlug answers not-found with the slug", async () => {
    const service = withoutAudit(memoryOrganizations({ standing: false, institutionIds: [] }));
    const missing = await rejection(service.getOrganizationBySlug("nobody"));
    expect(missing.message).to.equal('No organization has the slug "nobody".');
  });

  it("getCurrentOrganization describes the caller and one page of its stewarded institutions", async () => {
    const organizations = memoryOrganizations({ standing: true, institutionIds: ["inst_1", "inst_2", "inst_3"] });
    const service = withoutAudit(organizations);
    const org = await service.createOrganization({ slug: "acme", name: "Acme", source: "channel_a" });
    const caller = {
      kind: "api_key" as const,
      id: "key_1",
      organizationId: org.id,
      organizationSlug: "acme",
      channel: "channel_a" as const,
      environment: "live" as const,
      scopes: ["read:public" as const],
    };
    const { view, total } = await service.getCurrentOrganization(caller, { limit: 2, offset: 1 });
    expect(total).to.equal(3);
    expect(view).to.deep.equal({
      organization: { id: org.id, slug: "acme", name: "Acme", channel: "channel_a" },
      environment: "live",
      credential: { id: "key_1", kind: "api_key" },
      scopes: ["read:public"],
      stewardship: { allInstitutions: true, institutionIds: ["inst_2", "inst_3"] },
    });
  });
});
