// A real OpenID Provider for tests (the npm `oidc-provider`, certified by the
// OpenID Foundation), on 127.0.0.1 with a port chosen by the OS. One
// confidential client; PKCE required; every authorization signs in the person
// set with setUser, with no login form (the interaction is finished at once), so
// an HTTP client or a browser just follows the redirects.
//
//   const op = await startOidcProvider({ redirectUris: [`${origin}/dashboard/auth/oidc/callback`] });
//   op.setUser({ sub: "ada", email: "ada@example.edu", name: "Ada", claims: { groups: ["staff"] } });
//   `sso add-oidc --issuer ${op.issuer} --client-id ${op.clientId} --client-secret ${op.clientSecret}`
//   await op.close();
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { interactionPolicy, type KoaContextWithOIDC } from "oidc-provider";

export interface OidcTestUser {
  sub: string;
  email: string;
  name?: string;
  email_verified?: boolean;
  /** Further claims in the ID token (a role or groups claim, say). */
  claims?: Record<string, unknown>;
}

export interface OidcTestProvider {
  /** The issuer URL: http://127.0.0.1:<port> */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The person signed in by the next authorizations. */
  setUser(user: OidcTestUser): void;
  close(): Promise<void>;
}

export async function startOidcProvider(options: {
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
  /** Claims besides sub, email and name that the provider may release (default: groups, role). */
  roleClaims?: string[];
}): Promise<OidcTestProvider> {
  const roleClaims = options.roleClaims ?? ["groups", "role"];
  let user: OidcTestUser = { sub: "person", email: "person@example.edu", name: "Test Person" };
  const clientId = options.clientId ?? "dashboard-test-client";
  const clientSecret = options.clientSecret ?? crypto.randomBytes(24).toString("base64url");

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: "test-op", alg: "RS256", use: "sig" };

  // Every authorization asks for a login (the current test user), unless this interaction just gave it.
  const policy = interactionPolicy.base();
  policy
    .get("login")!
    .checks.add(
      new interactionPolicy.Check("test_user", "the test provider signs in its current user each time", (ctx) =>
        ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
      ),
    );

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [signingKey as never] },
    cookies: { keys: [crypto.randomBytes(32).toString("hex")] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    // Role claims ride with the profile scope, which the service asks for, so no custom scope is needed.
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", ...roleClaims] },
    conformIdTokenClaims: false,
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}`, policy },
    async findAccount(_ctx, sub) {
      if (sub !== user.sub) return undefined;
      const current = user;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: current.email,
          email_verified: current.email_verified ?? true,
          ...(current.name ? { name: current.name } : {}),
          ...current.claims,
        }),
      };
    },
  });
  provider.proxy = false;

  const callback = provider.callback();
  server.on("request", (req, res) => {
    const path = new URL(req.url ?? "/", issuer).pathname;
    if (!path.startsWith("/interaction/")) {
      callback(req, res);
      return;
    }
    finishInteraction(req, res).catch((error) => {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    });
  });

  async function finishInteraction(req: http.IncomingMessage, res: http.ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    const grant = new provider.Grant({ accountId: user.sub, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope ?? "openid"));
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: user.sub, remember: false }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  return {
    issuer,
    clientId,
    clientSecret,
    setUser(next) {
      user = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
