// The application context: everything that lives as long as the process,
// built once (by createApp, the dispatcher and the CLI) and handed down. Handlers
// see only `services`; `database` is here for its lifecycle (close, migrations).
import type { Config } from "../kernel/config.ts";
import type { Database } from "../db/database.ts";
import type { Logger } from "../kernel/logger.ts";
import { Authenticator } from "../auth/authenticator.ts";
import { createAccessTokens, type AccessTokens } from "../auth/oauth.ts";
import { createExternalTokens } from "../auth/external-tokens.ts";
import { bearerTokenVerifier } from "../auth/token-verifier.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import { repositoriesOf, type Repositories } from "../repositories/index.ts";
import { createServices, type Services } from "../services/index.ts";

export interface AppContext {
  config: Config;
  log: Logger;
  database: Database;
  /** Seals and opens stored secrets (see src/process/startup.ts, openSecrets). */
  secrets: SecretBox;
  authenticator: Authenticator;
  /** Issues and verifies the service's own OAuth access tokens. */
  accessTokens: AccessTokens;
  repositories: Repositories;
  services: Services;
}

export async function createAppContext(deps: {
  config: Config;
  database: Database;
  log: Logger;
  secrets: SecretBox;
}): Promise<AppContext> {
  const { config, database, log, secrets } = deps;
  const repositories = repositoriesOf(database);
  // Services are built after the token issuer; a user token's session is looked up through them.
  let services: Services | null = null;
  const accessTokens = await createAccessTokens(repositories, config, secrets, (sessionId) =>
    services ? services.dashboardSessions.sessionForToken(sessionId) : Promise.resolve(null),
  );
  const externalTokens = config.oauth.external
    ? createExternalTokens(repositories.organizations, config.oauth.external)
    : null;
  const authenticator = new Authenticator(
    repositories.credentials,
    bearerTokenVerifier(accessTokens, externalTokens),
    (error) => log.warn({ err: error }, "background write failed"),
    config.credentialCacheMs,
  );
  services = createServices({
    repositories,
    config,
    secrets,
    forgetCredential: (id) => authenticator.forget(id),
    listen: (channel, onNotice, onGap) => database.listen(channel, onNotice, onGap),
    log,
    databaseKind: database.kind,
  });
  return { config, log, database, secrets, authenticator, accessTokens, repositories, services };
}
