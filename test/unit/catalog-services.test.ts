// The catalog services' rules, against in-memory fakes of their repositories:
// no database, so each rule is seen on its own.
import { expect } from "chai";
import type {
  ApiKey,
  Equivalency,
  EquivalencyVersion,
  Institution,
  OAuthClient,
  User,
} from "../../generated/prisma/client.ts";
import { NotFoundError, ValidationError } from "../../src/kernel/errors.ts";
import type { CoursesRepository } from "../../src/repositories/courses.ts";
import type { CredentialsRepository } from "../../src/repositories/credentials.ts";
import type { UsersRepository } from "../../src/repositories/users.ts";
import type { EquivalenciesRepository } from "../../src/repositories/equivalencies.ts";
import type { InstitutionsRepository } from "../../src/repositories/institutions.ts";
import { createCoursesService } from "../../src/services/courses.ts";
import { createEquivalencyVersionsService } from "../../src/services/equivalency-versions.ts";
import { createInstitutionsService } from "../../src/services/institutions.ts";
import { SANDBOX_CALLER } from "../helpers/services.ts";

const caller = SANDBOX_CALLER;

/** A fake whose every function fails the test when called, unless the test gives it. */
function only<T extends object>(given: Partial<T>): T {
  return new Proxy(given as T, {
    get(target, name) {
      if (name in target) return target[name as keyof T];
      return () => {
        throw new Error(`the service called ${String(name)}, which this test says it must not`);
      };
    },
  });
}

/** A fake that fails the test as soon as the service reads anything of it. */
function untouchable<T>(): T {
  return new Proxy(
    {},
    {
      get(_target, name) {
        throw new Error(`the service read ${String(name)}, which this test says it must not`);
      },
    },
  ) as T;
}

describe("institutions service (getInstitution, listInstitutions)", () => {
  const berkeley: Institution = {
    environment: "sandbox",
    id: "inst_110635",
    ipedsId: "110635",
    name: "University of California-Berkeley",
    city: "Berkeley",
    state: "CA",
    type: "four_year_public",
    system: null,
    source: "direct",
  } as Institution;

  it("getInstitution asks for the caller's environment and names the id and environment when nothing is found", async () => {
    const asked: string[] = [];
    const service = createInstitutionsService({
      institutions: only<InstitutionsRepository>({
        findById: async (environment, id) => (asked.push(`${environment}/${id}`), null),
      }),
    });
    const error = await service.getInstitution(caller, "inst_1").catch((thrown: unknown) => thrown);
    expect(asked).to.deep.equal(["sandbox/inst_1"]);
    expect(error).to.be.instanceOf(NotFoundError);
    expect((error as NotFoundError).message).to.equal('No institution with id "inst_1" in the sandbox environment.');
  });

  it("listInstitutions answers the API representation of the repository's page and its total", async () => {
    const service = createInstitutionsService({
      institutions: only<InstitutionsRepository>({
        listPage: async () => ({ items: [berkeley], total: 41, next: null }),
      }),
    });
    const page = await service.listInstitutions(caller, {}, { limit: 1, offset: 0 });
    expect(page.total).to.equal(41);
    expect(page.items).to.deep.equal([
      {
        id: "inst_110635",
        ipedsId: "110635",
        name: "University of California-Berkeley",
        city: "Berkeley",
        state: "CA",
        type: "four_year_public",
        system: null,
        source: "direct",
      },
    ]);
  });
});

describe("equivalency history (listEquivalencyVersions, getEquivalencyVersion)", () => {
  const current = { id: "eqv_1", environment: "sandbox", version: 3 } as Equivalency;
  /** The history service over `equivalencies`, with no member, key or client to name. */
  const historyService = (
    equivalencies: EquivalenciesRepository,
    names: { users?: Partial<UsersRepository>; credentials?: Partial<CredentialsRepository> } = {},
  ) =>
    createEquivalencyVersionsService({
      equivalencies,
      users: only<UsersRepository>(names.users ?? {}),
      credentials: only<CredentialsRepository>(names.credentials ?? {}),
    });

  it("getEquivalencyVersion beyond a 32-bit integer is not found without asking the repository", async () => {
    const service = historyService(only<EquivalenciesRepository>({ findById: async () => current }));
    const error = await service
      .getEquivalencyVersion(caller, "eqv_1", 2_147_483_648)
      .catch((thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(NotFoundError);
    expect((error as NotFoundError).message).to.equal(
      "Equivalency eqv_1 has no version 2147483648; its current version is 3.",
    );
  });

  it("getEquivalencyVersion of an equivalency of another environment is not found before any version is read", async () => {
    const service = historyService(only<EquivalenciesRepository>({ findById: async () => null }));
    const error = await service.getEquivalencyVersion(caller, "eqv_9", 1).catch((thrown: unknown) => thrown);
    expect((error as NotFoundError).message).to.equal('No equivalency with id "eqv_9" in the sandbox environment.');
  });

  it("getEquivalencyVersion marks the version that is the current one", async () => {
    const version = (n: number) =>
      ({
        equivalencyId: "eqv_1",
        version: n,
        state: {},
        changeNote: null,
        actorKind: null,
        changedFields: [],
        recordedAt: new Date(0),
      }) as unknown as EquivalencyVersion;
    const service = historyService(
      only<EquivalenciesRepository>({
        findById: async () => current,
        findVersion: async (_id, n) => version(n),
      }),
    );
    expect(await service.getEquivalencyVersion(caller, "eqv_1", 3)).to.include({ version: 3, current: true });
    expect(await service.getEquivalencyVersion(caller, "eqv_1", 2)).to.include({ version: 2, current: false });
  });

  it("getEquivalencyVersion names the caller's organization's members and keys, never another organization's", async () => {
    const byActor = (n: number, actorKind: string, actorCredentialId: string, actorOrganizationId: string) =>
      ({
        equivalencyId: "eqv_1",
        version: n,
        state: {},
        changeNote: null,
        actorKind,
        actorCredentialId,
        actorOrganizationId,
        changedFields: [],
        recordedAt: new Date(0),
      }) as unknown as EquivalencyVersion;
    const users: Record<string, Partial<User>> = {
      usr_own: { organizationId: "org_1", email: "registrar@acme.example" },
      usr_other: { organizationId: "org_2", email: "someone@elsewhere.example" },
    };
    const keys: Record<string, Partial<ApiKey>> = {
      key_named: { organizationId: "org_1", name: "Registrar sync", prefix: "svc_sandbox_ab" },
      key_unnamed: { organizationId: "org_1", name: null, prefix: "svc_sandbox_cd" },
    };
    const service = historyService(
      only<EquivalenciesRepository>({
        findById: async () => current,
        findVersion: async (_id, n) =>
          [
            byActor(1, "api_key", "key_named", "org_1"),
            byActor(2, "user", "usr_own", "org_1"),
            byActor(3, "user", "usr_other", "org_2"),
            byActor(4, "api_key", "key_unnamed", "org_1"),
            byActor(5, "oauth_client", "oac_1", "org_1"),
          ][n - 1],
      }),
      {
        users: { findById: async (id) => (users[id] as User) ?? null },
        credentials: {
          findApiKeyById: async (id) => (keys[id] as ApiKey) ?? null,
          findOAuthClientById: async () =>
            ({ organizationId: "org_1", name: null, clientId: "oac_client_1" }) as unknown as OAuthClient & {
              organization: never;
            },
        },
      },
    );
    const versions = await Promise.all([1, 2, 3, 4, 5].map((n) => service.getEquivalencyVersion(caller, "eqv_1", n)));
    expect(versions.map((v) => v.actor?.displayName)).to.deep.equal([
      "Registrar sync",
      "registrar@acme.example",
      null,
      "key svc_sandbox_cd…",
      "OAuth client oac_client_1",
    ]);
  });
});

describe("courses service (upsertCourses)", () => {
  const course = { institutionId: "inst_1", code: "CS 1", title: "Programming", credits: 3, level: "lower" as const };

  /** Only the reference lookup is given: a batch that fails validation must not reach stewardship or any write. */
  function serviceKnowing(known: Awaited<ReturnType<CoursesRepository["findKnownReferences"]>>) {
    return createCoursesService({
      courses: only<CoursesRepository>({ findKnownReferences: async () => known }),
      stewardship: untouchable(),
      transaction: untouchable(),
    });
  }

  async function validationErrorOf(promise: Promise<unknown>): Promise<ValidationError> {
    const error = await promise.catch((thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(ValidationError);
    return error as ValidationError;
  }

  it("upsertCourses refuses a batch naming an unknown institution, a CIP code outside a loaded catalog and a repeated course, writing nothing", async () => {
    const service = serviceKnowing({ institutions: ["inst_1"], cipCodes: [], catalogLoaded: true });
    const error = await validationErrorOf(
      service.upsertCourses(caller, [
        course,
        { ...course, institutionId: "inst_2", code: "X 1" },
        { ...course, code: " cs  1 ", cipCode: "99.9999" },
      ]),
    );
    expect(error.message).to.equal("3 values are not valid.");
    expect(error.errors).to.deep.equal([
      { pointer: "/1/institutionId", message: 'no institution "inst_2" in the sandbox environment' },
      { pointer: "/2/cipCode", message: '"99.9999" is not a CIP 2020 code' },
      { pointer: "/2/code", message: "the same course as item 0 of this batch" },
    ]);
  });

  it("upsertCourses of one object points at its fields without an item index", async () => {
    const service = serviceKnowing({ institutions: [], cipCodes: [], catalogLoaded: false });
    const error = await validationErrorOf(
      service.upsertCourses(caller, [{ ...course, code: "   " }], { single: true }),
    );
    expect(error.errors).to.deep.equal([
      { pointer: "/institutionId", message: 'no institution "inst_1" in the sandbox environment' },
      { pointer: "/code", message: "must contain a character other than white space" },
    ]);
  });

  it("upsertCourses accepts any CIP code while no catalog is loaded (it cannot be checked)", async () => {
    const service = serviceKnowing({ institutions: ["inst_1"], cipCodes: [], catalogLoaded: false });
    // Validation passes, so the service goes on to the stewardship check, which this fake refuses to answer.
    const error = await service
      .upsertCourses(caller, [{ ...course, cipCode: "99.9999" }])
      .catch((thrown: unknown) => thrown);
    expect(error).to.not.be.instanceOf(ValidationError);
    expect((error as Error).message).to.match(/^the service read \w+, which this test says it must not$/);
  });
});
