// The service provider's addresses, all derived from the one public origin
// (SVC_PUBLIC_ORIGIN): what an identity provider is told and checks.

export const SSO_PATHS = {
  start: "/dashboard/auth/start",
  oidcCallback: "/dashboard/auth/oidc/callback",
  samlMetadata: "/dashboard/auth/saml/metadata",
  samlAcs: "/dashboard/auth/saml/acs",
} as const;

export interface ServiceProviderUrls {
  /** OIDC redirect URI, registered at the provider. */
  oidcRedirectUri: string;
  /** SAML assertion consumer service (HTTP-POST binding). */
  samlAcsUrl: string;
  /** SAML SP entity id: the metadata URL, as is customary. */
  samlEntityId: string;
  samlMetadataUrl: string;
}

export function serviceProviderUrls(publicOrigin: string): ServiceProviderUrls {
  const origin = publicOrigin.replace(/\/+$/, "");
  return {
    oidcRedirectUri: origin + SSO_PATHS.oidcCallback,
    samlAcsUrl: origin + SSO_PATHS.samlAcs,
    samlEntityId: origin + SSO_PATHS.samlMetadata,
    samlMetadataUrl: origin + SSO_PATHS.samlMetadata,
  };
}
