// Webhook targets must be http(s), and outside development they must not reach
// loopback, private, link-local or cloud-metadata addresses — checked on the
// resolved addresses, at registration and again at delivery.
import dns from "node:dns/promises";
import net from "node:net";

export class UnsafeTargetError extends Error {}

const BLOCKED_V4: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];
const BLOCKED_V6: [string, number][] = [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["fd00:ec2::254", 128],
];

const blockList = new net.BlockList();
for (const [address, prefix] of BLOCKED_V4) blockList.addSubnet(address, prefix, "ipv4");
for (const [address, prefix] of BLOCKED_V6) blockList.addSubnet(address, prefix, "ipv6");

export function isPrivateAddress(address: string): boolean {
  const family = net.isIPv6(address) ? "ipv6" : "ipv4";
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blockList.check(mapped[1], "ipv4");
  return blockList.check(address, family);
}

/** Throws UnsafeTargetError with a client-readable reason. */
export function assertHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError("is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UnsafeTargetError("must use http or https");
  if (url.username || url.password) throw new UnsafeTargetError("must not carry credentials");
  return url;
}

export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = async (hostname) => (await dns.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Resolves the host and refuses private addresses unless they are allowed. */
export async function assertSafeTarget(raw: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<URL> {
  const url = assertHttpUrl(raw);
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : await resolve(host);
  } catch {
    throw new UnsafeTargetError(`host ${host} does not resolve`);
  }
  const blocked = addresses.find(isPrivateAddress);
  if (blocked || addresses.length === 0) {
    throw new UnsafeTargetError(`resolves to ${blocked ?? "no address"}, a loopback, private, link-local or metadata address`);
  }
  return url;
}
