// The application context: everything that lives as long as the app, built
// once by createApp (and by the worker and the CLI) and handed down from there.
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import type { Logger } from "./logger.ts";
import { Authenticator } from "./auth/authenticator.ts";
import { createAccessTokens, type AccessTokens } from "./auth/oauth.ts";
import { createExternalTokens } from "./auth/external-tokens.ts";
import { bearerTokenVerifier } from "./auth/token-verifier.ts";
import type { SecretBox } from "./auth/secret-box.ts";
import { createRepositories, type Repositories } from "./repositories/index.ts";
import { createServices, type Services } from "./services/index.ts";

export interface AppContext {
  config: Config;
  log: Logger;
  /** For the lifecycle only (close, migrations): handlers and services go through repositories. */
  database: Database;
  secrets: SecretBox;
  authenticator: Authenticator;
  accessTokens: AccessTokens;
  repositories: Repositories;
  services: Services;
}

export async function createAppContext(deps: { config: Config; database: Database; log: Logger; secrets: SecretBox }): Promise<AppContext> {
  const { config, database, log, secrets } = deps;
  const accessTokens = await createAccessTokens(database.prisma, config, secrets);
  const externalTokens = config.oauth.external ? createExternalTokens(database.prisma, config.oauth.external) : null;
  const authenticator = new Authenticator(database.prisma, bearerTokenVerifier(accessTokens, externalTokens), (error) =>
    log.warn({ err: error }, "background write failed"),
  );
  const repositories = createRepositories(database.prisma);
  const services = createServices({ repositories, config, database, authenticator, secrets });
  return { config, log, database, secrets, authenticator, accessTokens, repositories, services };
}
