// How a change's actor is named to a reader: a member by email, an API key or OAuth client by
// the name it was given. Only actors of the reader's own organization are named; another
// organization's people and credentials stay ids (their names are that organization's business).
import type { CredentialKind } from "../../generated/prisma/client.ts";
import type { Repositories } from "../repositories/index.ts";

export interface ActorRef {
  kind: CredentialKind;
  id: string;
  organizationId: string | null;
}

/** Names the actors of `organizationId` among `actors`; the map is keyed by `actorKey`. */
export type ActorNames = (organizationId: string, actors: ActorRef[]) => Promise<Map<string, string | null>>;

export function actorKey(actor: { kind: string; id: string }): string {
  return `${actor.kind}:${actor.id}`;
}

export function createActorNames({ users, credentials }: Pick<Repositories, "users" | "credentials">): ActorNames {
  async function nameOf(actor: ActorRef): Promise<string | null> {
    switch (actor.kind) {
      case "user": {
        const user = await users.findById(actor.id);
        return user?.organizationId === actor.organizationId ? user.email : null;
      }
      case "api_key": {
        const key = await credentials.findApiKeyById(actor.id);
        if (key?.organizationId !== actor.organizationId) return null;
        return key.name ?? `key ${key.prefix}…`;
      }
      case "oauth_client": {
        const client = await credentials.findOAuthClientById(actor.id);
        if (client?.organizationId !== actor.organizationId) return null;
        return client.name ?? `OAuth client ${client.clientId}`;
      }
      case "external_token":
        return actor.id.replace(/^ext:/, "");
      default:
        return null;
    }
  }

  return async (organizationId, actors) => {
    const names = new Map<string, string | null>();
    const own = actors.filter((actor) => actor.organizationId === organizationId);
    const distinct = [...new Map(own.map((actor) => [actorKey(actor), actor])).values()];
    await Promise.all(distinct.map(async (actor) => names.set(actorKey(actor), await nameOf(actor))));
    return names;
  };
}
