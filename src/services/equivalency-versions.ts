// Reading an equivalency's history: every version's immutable snapshot, with
// its change note, actor and changed fields.
import type { EquivalencyVersion } from "../../generated/prisma/client.ts";
import type { Credential } from "../auth/credential.ts";
import type { Repositories } from "../repositories/index.ts";
import { MAX_INT4, type Page } from "./types.ts";
import { notFound } from "../kernel/errors.ts";
import { equivalencyView } from "../views/catalog.ts";
import { actorKey, type ActorRef, createActorNames } from "./actor-names.ts";

function actorOf(record: EquivalencyVersion): ActorRef | null {
  return record.actorKind && record.actorCredentialId
    ? { kind: record.actorKind, id: record.actorCredentialId, organizationId: record.actorOrganizationId }
    : null;
}

function versionView(record: EquivalencyVersion, currentVersion: number, names: Map<string, string | null>) {
  const actor = actorOf(record);
  return {
    version: record.version,
    current: record.version === currentVersion,
    state: record.state as ReturnType<typeof equivalencyView>,
    changeNote: record.changeNote,
    actor: record.actorKind
      ? {
          credentialId: record.actorCredentialId,
          organizationId: record.actorOrganizationId,
          kind: record.actorKind,
          displayName: actor ? (names.get(actorKey(actor)) ?? null) : null,
        }
      : null,
    changedFields: record.changedFields,
    recordedAt: record.recordedAt.toISOString(),
  };
}

/** The read side of equivalency history, part of the equivalencies service. */
export function createEquivalencyVersionsService(deps: Pick<Repositories, "equivalencies" | "users" | "credentials">) {
  const { equivalencies } = deps;
  const actorNames = createActorNames(deps);
  async function findCurrent(caller: Credential, id: string) {
    const current = await equivalencies.findById(caller.environment, id);
    if (!current) throw notFound.equivalency(id, caller.environment);
    return current;
  }
  const namesOf = (caller: Credential, versions: EquivalencyVersion[]) =>
    actorNames(
      caller.organizationId,
      versions.map(actorOf).filter((actor) => actor !== null),
    );

  return {
    /** The current record and a page of its versions, newest first. */
    async listEquivalencyVersions(caller: Credential, id: string, page: Page) {
      const current = await findCurrent(caller, id);
      const { items, total, next } = await equivalencies.listVersionsPage(id, page);
      const names = await namesOf(caller, items);
      return {
        current: equivalencyView(current),
        versions: items.map((v) => versionView(v, current.version, names)),
        total,
        next,
      };
    },

    async getEquivalencyVersion(caller: Credential, id: string, version: number) {
      const current = await findCurrent(caller, id);
      // No version beyond the column's range exists; asking the database would fail instead of finding nothing.
      const record = version <= MAX_INT4 ? await equivalencies.findVersion(id, version) : null;
      if (!record) throw notFound.equivalencyVersion(id, version, current.version);
      return versionView(record, current.version, await namesOf(caller, [record]));
    },
  };
}
