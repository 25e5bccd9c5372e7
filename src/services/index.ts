// What handlers are given to do their work: the database and the few stateful
// collaborators that live as long as the app.
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { SecretBox } from "../auth/secret-box.ts";

export interface Services {
  config: Config;
  database: Database;
  authenticator: Authenticator;
  /** Seals and opens stored secrets (webhook secrets, the token-signing key). */
  secrets: SecretBox;
}
