// A self-signed signing certificate made for one test run (never committed).
import { generate } from "selfsigned";

export interface TestCertificate {
  privateKeyPem: string;
  certificatePem: string;
  /** Base64 DER, as SAML metadata carries it. */
  certificateBase64: string;
}

export async function testCertificate(commonName: string): Promise<TestCertificate> {
  const pems = await generate([{ name: "commonName", value: commonName }], {
    keySize: 2048,
    algorithm: "sha256",
    notAfterDate: new Date(Date.now() + 30 * 86_400_000),
  });
  return {
    privateKeyPem: pems.private,
    certificatePem: pems.cert,
    certificateBase64: pems.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, ""),
  };
}
