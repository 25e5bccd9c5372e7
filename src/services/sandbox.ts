// The sandbox environment: its public read-only key, and its demo dataset,
// loaded on first start so every new user has realistic data to read.
import crypto from "node:crypto";
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Channel } from "./types.ts";
import type { Repositories } from "../repositories/index.ts";
import { hashApiKey, keyPrefix } from "../auth/api-keys.ts";
import { institutionId } from "../kernel/ids.ts";
import { courseCodeKey, equivalencyTargetKey, equivalencyView } from "../views/catalog.ts";
import { ruleKey } from "./rules/model.ts";
import {
  seedCourses,
  seedEquivalencies,
  seedInstitutions,
  type SeedChange,
  type SeedEquivalency,
} from "../../prisma/seed/sandbox-data.ts";

export const PUBLIC_SANDBOX_ORG = {
  id: "org_public_sandbox",
  slug: "public-sandbox",
  name: "Public sandbox (read-only)",
};
export const PUBLIC_SANDBOX_KEY_ID = "key_public_sandbox";
/** Owners of the seeded equivalencies, one per onboarding channel. */
const DEMO_ORGS: Record<Channel, { id: string; slug: string; name: string }> = {
  channel_a: { id: "org_demo_channel_a", slug: "demo-channel-a", name: "Demo contributor (channel A)" },
  channel_b: { id: "org_demo_channel_b", slug: "demo-channel-b", name: "Demo contributor (channel B)" },
  direct: { id: "org_demo_direct", slug: "demo-direct", name: "Demo contributor (direct)" },
};
/** Steward of every seeded sandbox institution: the seed's records belong to it, not to any user's organization. */
export const SANDBOX_SEED_ORG = { id: "org_sandbox_seed", slug: "sandbox-seed", name: "Sandbox seed data" };

const SEED_EPOCH = Date.UTC(2025, 0, 6, 15, 0, 0);
const DAY_MS = 86_400_000;

/** Stable ids, so documentation and bug reports can name sandbox records. */
function stableId(prefix: string, naturalKey: string): string {
  const digest = crypto.createHash("sha256").update(naturalKey).digest();
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let id = "";
  for (let i = 0; i < 26; i++) id += alphabet[digest[i] % 32];
  return `${prefix}_${id}`;
}

export function seedCourseId(ipedsId: string, code: string): string {
  return stableId("crs", `sandbox:${ipedsId}:${courseCodeKey(code)}`);
}

export interface SeedSummary {
  institutions: number;
  courses: number;
  equivalencies: number;
  versions: number;
}

const SEEDED_INSTITUTION_IDS = seedInstitutions.map((i) => institutionId(i.ipedsId));

export function createSandboxService({ sandbox }: Pick<Repositories, "sandbox">) {
  async function seedSandbox(): Promise<SeedSummary> {
    const equivalencies = seedEquivalencies.map(buildEquivalency);
    const versions = equivalencies.flatMap((e) => e.versions);
    await sandbox.insertSeed("sandbox", {
      organizations: Object.entries(DEMO_ORGS).map(([source, fields]) => ({ ...fields, source: source as Channel })),
      institutions: seedInstitutions.map((i) => ({
        environment: "sandbox" as const,
        id: institutionId(i.ipedsId),
        ...i,
      })),
      courses: seedCourses.map(({ ipedsId, ...course }, index) => ({
        id: seedCourseId(ipedsId, course.code),
        environment: "sandbox" as const,
        institutionId: institutionId(ipedsId),
        codeKey: courseCodeKey(course.code),
        ...course,
        createdAt: new Date(SEED_EPOCH + index * 60_000),
        updatedAt: new Date(SEED_EPOCH + index * 60_000),
      })),
      equivalencies: equivalencies.map((e) => e.record),
      versions,
      steward: { ...SANDBOX_SEED_ORG, source: "direct" },
    });
    return {
      institutions: seedInstitutions.length,
      courses: seedCourses.length,
      equivalencies: equivalencies.length,
      versions: versions.length,
    };
  }

  return {
    /** The configured public key reads the sandbox; a changed value replaces the old one. */
    async ensurePublicSandboxKey(key: string): Promise<void> {
      await sandbox.ensureApiKey(
        { ...PUBLIC_SANDBOX_ORG, source: "direct" },
        {
          id: PUBLIC_SANDBOX_KEY_ID,
          organizationId: PUBLIC_SANDBOX_ORG.id,
          name: "Public sandbox key",
          fields: {
            hash: hashApiKey(key),
            prefix: keyPrefix(key),
            scopes: ["read:public"],
            environment: "sandbox",
            revokedAt: null,
          },
        },
      );
    },

    seedSandbox,

    /** Seeds only a sandbox without institutions; null when there was something already. */
    async seedSandboxIfEmpty(): Promise<SeedSummary | null> {
      if ((await sandbox.countInstitutions("sandbox")) > 0) return null;
      return seedSandbox();
    },

    /**
     * The seed organization stewards the seeded institutions present in the sandbox.
     * Idempotent; run at every start so sandboxes seeded before stewardship existed get it too.
     */
    grantSeedStewardship(): Promise<void> {
      return sandbox.grantStewardshipOfPresent(
        { ...SANDBOX_SEED_ORG, source: "direct" },
        "sandbox",
        SEEDED_INSTITUTION_IDS,
      );
    },
  };
}

export type SandboxService = ReturnType<typeof createSandboxService>;

type EquivalencyRow = Prisma.EquivalencyCreateManyInput & { version: number; updatedAt: Date };

function buildEquivalency(seed: SeedEquivalency, index: number) {
  const createdAt = new Date(SEED_EPOCH + 30 * DAY_MS + index * 3_600_000);
  const org = DEMO_ORGS[seed.provenance];
  const targetCourseId = seed.target.courseCode ? seedCourseId(seed.target.ipedsId, seed.target.courseCode) : null;
  const targetCode = seed.target.courseCode ?? seed.target.targetCode ?? null;
  const sourceCourseId = seedCourseId(seed.source.ipedsId, seed.source.code);
  const sourceCourseSets = [
    [sourceCourseId],
    ...(seed.alternatives ?? []).map((set) => set.map((code) => seedCourseId(seed.source.ipedsId, code))),
  ];
  const record: EquivalencyRow = {
    id: stableId("eq", `sandbox:${seed.source.ipedsId}:${seed.source.code}:${seed.target.ipedsId}:${targetCode ?? ""}`),
    environment: "sandbox",
    sourceCourseId,
    sourceCourseIds: [sourceCourseId],
    sourceCourseSets,
    targetInstitutionId: institutionId(seed.target.ipedsId),
    targetCourseId,
    targetCode,
    targetKey: ruleKey({
      sourceCourseIds: [sourceCourseId],
      sourceCourseSets,
      targets: [{ courseId: targetCourseId, code: targetCode, credits: null }],
      kind: "equivalent",
      generalEducationArea: null,
      effectiveFrom: null,
    }),
    status: seed.status,
    decidedBy: seed.decidedBy,
    decidedAt: seed.status === "pending" ? null : createdAt,
    policyBasis: seed.policyBasis,
    version: 1,
    provenance: seed.provenance,
    organizationId: org.id,
    createdAt,
    updatedAt: createdAt,
  };
  const actor = { actorCredentialId: null, actorOrganizationId: org.id, actorKind: "api_key" as const };
  const snapshot = (note: string | null, changedFields: string[]): Prisma.EquivalencyVersionCreateManyInput => ({
    id: stableId("eqv", `${record.id}:${record.version}`),
    equivalencyId: record.id,
    version: record.version,
    state: equivalencyView({ ...record, datasetVersionId: null } as never) as Prisma.InputJsonValue,
    changeNote: note,
    changedFields,
    ...actor,
    recordedAt: record.updatedAt,
  });
  const versions = [snapshot(null, [])];
  (seed.history ?? []).forEach((change, step) => {
    const changed = applyChange(record, change, new Date(createdAt.getTime() + (step + 1) * 14 * DAY_MS));
    versions.push(snapshot(change.note, changed));
  });
  return { record, versions };
}

function applyChange(record: EquivalencyRow, change: SeedChange, at: Date): string[] {
  const changed: string[] = [];
  for (const field of ["status", "policyBasis", "decidedBy", "targetCode"] as const) {
    const value = change[field];
    if (value !== undefined && value !== record[field]) {
      (record as Record<string, unknown>)[field] = value;
      changed.push(field);
    }
  }
  if (changed.includes("targetCode"))
    record.targetKey = equivalencyTargetKey(record.targetCourseId ?? null, record.targetCode ?? null);
  if (changed.includes("status")) {
    record.decidedAt = record.status === "pending" ? null : at;
    changed.push("decidedAt");
  }
  record.version += 1;
  record.updatedAt = at;
  return changed;
}
