// People: just-in-time provisioning under concurrency, one-time sign-in links, and the rules
// of members (last admin, disabling). On PostgreSQL the concurrent sign-ins really run at once
// (a pool of connections); PGlite serialises them.
import { expect } from "chai";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { SignInRefusedError } from "../../src/kernel/errors.ts";

describe("people: users, provisioning and sign-in links", () => {
  let t: TestApp;
  const users = () => t.app.context.services.users;
  const count = async (organizationId: string) =>
    (await t.app.context.repositories.users.listPage(organizationId, { limit: 100, offset: 0 })).total;

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("provisionFederatedUser creates exactly one user for many concurrent first sign-ins (emails in any case)", async () => {
    const other = await t.otherOrganization("concurrent");
    const attempts = Array.from({ length: 24 }, (_, i) =>
      users().provisionFederatedUser({
        organizationId: other.id,
        email: i % 2 ? "Ada.Lovelace@Example.edu" : "ada.lovelace@example.edu ",
        name: "Ada Lovelace",
        role: "viewer",
      }),
    );
    const results = await Promise.all(attempts);
    expect(new Set(results.map((user) => user.id)).size).to.equal(1);
    expect(await count(other.id)).to.equal(1);
    // The creation's audit entry commits with it: one user, one entry, the user as actor and target.
    const created = await t.database.prisma.auditEntry.findMany({ where: { organizationId: other.id } });
    expect(created.map((entry) => [entry.operationId, entry.actorId, entry.targetId])).to.deep.equal([
      ["signIn", results[0].id, results[0].id],
    ]);
  });

  it("provisionFederatedUser updates name and role on a later sign-in and keeps the first email", async () => {
    const first = await users().provisionFederatedUser({
      organizationId: t.organizationId,
      email: "grace@example.edu",
      name: "Grace",
      role: "viewer",
    });
    const later = await users().provisionFederatedUser({
      organizationId: t.organizationId,
      email: "GRACE@example.edu",
      name: "Grace Hopper",
      role: "contributor",
    });
    expect(later.id).to.equal(first.id);
    expect(later).to.include({ name: "Grace Hopper", role: "contributor", email: "grace@example.edu" });
  });

  it("provisionFederatedUser without a mapped role creates a viewer and leaves an existing member's role alone", async () => {
    const fresh = await users().provisionFederatedUser({
      organizationId: t.organizationId,
      email: "unmapped@example.edu",
      role: null,
    });
    expect(fresh.role).to.equal("viewer");
    const invited = (
      await users().inviteUser({ organizationSlug: "acme", email: "kept@example.edu", role: "contributor" })
    ).user;
    const later = await users().provisionFederatedUser({
      organizationId: t.organizationId,
      email: "kept@example.edu",
      name: "Kept",
      role: null,
    });
    expect(later).to.include({ id: invited.id, role: "contributor", name: "Kept" });
    expect(await t.database.prisma.auditEntry.count({ where: { targetId: invited.id } })).to.equal(0);
  });

  it("provisionFederatedUser never demotes the last enabled admin, under concurrent sign-ins of two admins too", async () => {
    const org = await t.otherOrganization("admins-kept");
    const provision = (email: string, role: "viewer" | "admin") =>
      users().provisionFederatedUser({ organizationId: org.id, email, role });
    const a = await provision("a@admins.edu", "admin");
    const kept = await provision("a@admins.edu", "viewer");
    expect(kept).to.include({ id: a.id, role: "admin" });
    const b = await provision("b@admins.edu", "viewer");
    expect((await provision("b@admins.edu", "admin")).role).to.equal("admin");
    // Both admins asserted viewer at once: one of them stays admin.
    const [first, second] = await Promise.all([
      provision("a@admins.edu", "viewer"),
      provision("b@admins.edu", "viewer"),
    ]);
    const stored = await t.database.prisma.user.findMany({
      where: { organizationId: org.id },
      orderBy: { email: "asc" },
    });
    expect(stored.filter((user) => user.role === "admin")).to.have.length.at.least(1);
    expect([first.role, second.role].sort()).to.deep.equal(stored.map((user) => user.role).sort());
    const changes = await t.database.prisma.auditEntry.findMany({
      where: { organizationId: org.id, operationId: "signIn" },
    });
    // a and b were created (one entry each, with the creation), b became admin (one entry), and one of
    // the two lost it (one entry): every change audited, nothing else.
    expect(changes).to.have.length(4);
    expect(changes.map((entry) => entry.targetId).sort()).to.include(b.id);
  });

  it("the same email at two organizations is two users", async () => {
    const other = await t.otherOrganization("second-org");
    const a = await users().provisionFederatedUser({
      organizationId: t.organizationId,
      email: "shared@example.edu",
      role: "viewer",
    });
    const b = await users().provisionFederatedUser({
      organizationId: other.id,
      email: "shared@example.edu",
      role: "admin",
    });
    expect(a.id).to.not.equal(b.id);
  });

  it("provisionFederatedUser refuses a disabled user and leaves it unchanged", async () => {
    const user = await users().provisionFederatedUser({
      organizationId: t.organizationId,
      email: "gone@example.edu",
      role: "viewer",
    });
    await users().disableUser(user.id);
    let refused: unknown;
    try {
      await users().provisionFederatedUser({
        organizationId: t.organizationId,
        email: "gone@example.edu",
        role: "admin",
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(SignInRefusedError);
    expect((refused as SignInRefusedError).reason).to.equal("user-disabled");
    const stored = await t.app.context.repositories.users.findById(user.id);
    expect(stored?.role).to.equal("viewer");
  });

  it("a sign-in link works once, and concurrent uses of one link sign in only one of them", async () => {
    const invitation = await users().inviteUser({ organizationSlug: "acme", email: "link@example.edu", role: "admin" });
    expect(invitation.signInUrl).to.match(/\/dashboard\/auth\/link\?token=[A-Za-z0-9_-]{43}$/);
    const token = new URL(invitation.signInUrl).searchParams.get("token")!;
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => users().consumeSignInLink(token)));
    expect(outcomes.filter((o) => o.status === "fulfilled")).to.have.length(1);
    const reasons = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as SignInRefusedError).reason] : []));
    expect(new Set(reasons)).to.deep.equal(new Set(["link-used"]));
  });
});
