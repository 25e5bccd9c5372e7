// Webhook targets must be http(s), and unless the configuration allows them they
// must not reach loopback, private, link-local or cloud-metadata addresses, nor
// this server's own interface addresses, nor IPv6 forms that carry such an IPv4
// address — checked on the resolved addresses, at registration and again at
// delivery. A server that itself listens on loopback (local development) allows
// loopback targets only (see TargetAllowance).
import dns from "node:dns/promises";
import net from "node:net";
import os from "node:os";
import ipaddr from "ipaddr.js";

export class UnsafeTargetError extends Error {}

/**
 * Which targets a webhook may have: `true` any address (SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS=true),
 * `"loopback"` public addresses and this machine's loopback (the default when the server listens
 * on loopback), `false` public addresses only.
 */
export type TargetAllowance = boolean | "loopback";

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
  // Local-use NAT64 (RFC 8215): translated by the operator's own gateway, never a public host.
  ["64:ff9b:1::", 48],
];

const blockList = new net.BlockList();
for (const [address, prefix] of BLOCKED_V4) blockList.addSubnet(address, prefix, "ipv4");
for (const [address, prefix] of BLOCKED_V6) blockList.addSubnet(address, prefix, "ipv6");

/** This host's own addresses; read at every check, since interfaces come and go while the service runs. */
export type InterfaceAddresses = () => string[];

export const hostInterfaceAddresses: InterfaceAddresses = () =>
  Object.values(os.networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));

/**
 * The IPv4 address an IPv6 transition form carries: IPv4-compatible `::a.b.c.d`,
 * IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64
 * `64:ff9b::a.b.c.d` and 6to4 `2002:AABB:CCDD::/48`. Each reaches that IPv4
 * host (through the kernel, a NAT64 gateway or a 6to4 relay).
 */
function embeddedIPv4(address: ipaddr.IPv6): string | null {
  const p = address.parts;
  const zero = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  const v4 = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  if (zero(0, 5) && (p[5] === 0 || p[5] === 0xffff)) return v4(p[6], p[7]);
  if (zero(0, 4) && p[4] === 0xffff && p[5] === 0) return v4(p[6], p[7]);
  if (p[0] === 0x64 && p[1] === 0xff9b && zero(2, 6)) return v4(p[6], p[7]);
  if (p[0] === 0x2002) return v4(p[1], p[2]);
  return null;
}

function sameAddress(a: ipaddr.IPv4 | ipaddr.IPv6, b: string): boolean {
  if (!ipaddr.isValid(b)) return false;
  const other = ipaddr.parse(b);
  return other.kind() === a.kind() && other.toNormalizedString() === a.toNormalizedString();
}

/**
 * Why the address may not be a webhook target, or null when it may be one.
 * `interfaceAddresses` is read on every call (tests inject a fixed list).
 */
export function targetRefusal(
  address: string,
  interfaceAddresses: InterfaceAddresses = hostInterfaceAddresses,
  allowLoopback = false,
): string | null {
  const bare = address.replace(/%.*$/, "");
  if (!net.isIP(bare)) return "not an IP address";
  const parsed = ipaddr.parse(bare);
  if (allowLoopback && isLoopback(parsed)) return null;
  if (blockList.check(bare, parsed.kind())) return "a loopback, private, link-local or metadata address";
  if (parsed.kind() === "ipv6") {
    const embedded = embeddedIPv4(parsed as ipaddr.IPv6);
    const inner = embedded === null ? null : targetRefusal(embedded, interfaceAddresses);
    if (inner) return `an IPv6 form of ${embedded}, ${inner}`;
  }
  if (interfaceAddresses().some((own) => sameAddress(parsed, own.replace(/%.*$/, ""))))
    return "an address of this server's own network interfaces";
  return null;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped 127.x: the kernel delivers them to this machine. */
function isLoopback(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress())
    return (address as ipaddr.IPv6).toIPv4Address().range() === "loopback";
  return address.range() === "loopback";
}

export function isPrivateAddress(address: string, interfaceAddresses?: InterfaceAddresses): boolean {
  return targetRefusal(address, interfaceAddresses) !== null;
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

const systemResolver: Resolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Resolves the host and refuses unsafe addresses unless private targets are allowed. */
export async function assertSafeTarget(
  raw: string,
  allowPrivate: TargetAllowance,
  resolve: Resolver = systemResolver,
  interfaceAddresses: InterfaceAddresses = hostInterfaceAddresses,
): Promise<URL> {
  const url = assertHttpUrl(raw);
  if (allowPrivate === true) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : await resolve(host);
  } catch {
    throw new UnsafeTargetError(`host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new UnsafeTargetError("resolves to no address");
  for (const address of addresses) {
    const refusal = targetRefusal(address, interfaceAddresses, allowPrivate === "loopback");
    if (refusal) throw new UnsafeTargetError(`resolves to ${address}, ${refusal}`);
  }
  return url;
}
