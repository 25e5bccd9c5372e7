// Reading an equivalency's history: every version's immutable snapshot, with
// its change note, actor and changed fields.
import type { EquivalencyVersion } from "../../generated/prisma/client.ts";
import { MAX_INT4, type Db, type Environment } from "./types.ts";
import { NotFoundError } from "../errors.ts";
import { equivalencyView } from "./views.ts";

function versionView(record: EquivalencyVersion, currentVersion: number) {
  return {
    version: record.version,
    current: record.version === currentVersion,
    state: record.state as ReturnType<typeof equivalencyView>,
    changeNote: record.changeNote,
    actor: record.actorKind
      ? { credentialId: record.actorCredentialId, organizationId: record.actorOrganizationId, kind: record.actorKind }
      : null,
    changedFields: record.changedFields,
    recordedAt: record.recordedAt.toISOString(),
  };
}

async function findCurrent(db: Db, environment: Environment, id: string) {
  const current = await db.equivalency.findFirst({ where: { id, environment } });
  if (!current) throw new NotFoundError(`No equivalency with id "${id}" in the ${environment} environment.`);
  return current;
}

/** The current record and every version, newest first. */
export async function listVersions(db: Db, environment: Environment, id: string) {
  const current = await findCurrent(db, environment, id);
  const versions = await db.equivalencyVersion.findMany({ where: { equivalencyId: id }, orderBy: { version: "desc" } });
  return { current: equivalencyView(current), versions: versions.map((v) => versionView(v, current.version)) };
}

export async function getVersion(db: Db, environment: Environment, id: string, version: number) {
  const current = await findCurrent(db, environment, id);
  // No version beyond the column's range exists; asking the database would fail instead of finding nothing.
  const record = version <= MAX_INT4 ? await db.equivalencyVersion.findUnique({ where: { equivalencyId_version: { equivalencyId: id, version } } }) : null;
  if (!record) throw new NotFoundError(`Equivalency ${id} has no version ${version}; its current version is ${current.version}.`);
  return versionView(record, current.version);
}
