// The client address that per-address rate limits count against. An IPv4
// address counts as itself (also when it arrives IPv4-mapped, ::ffff:a.b.c.d);
// an IPv6 address counts as its /64 network, because one subscriber usually
// holds a whole /64 and could otherwise rotate through 2^64 fresh buckets.
import { isIPv4, isIPv6 } from "node:net";

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

export function clientAddressKey(address: string | undefined): string {
  if (!address) return "unknown";
  if (isIPv4(address)) return address;
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (isIPv6(address)) return `${ipv6Groups(address).slice(0, 4).join(":")}::/64`;
  return address;
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros ("::" expanded, a zone id dropped). */
function ipv6Groups(address: string): string[] {
  const [bare] = address.split("%");
  const [head, tail] = bare.includes("::") ? bare.split("::") : [bare, undefined];
  const groupsOf = (part: string | undefined) => (part ? part.split(":").flatMap(embeddedIpv4ToGroups) : []);
  const front = groupsOf(head);
  const back = groupsOf(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill("0");
  return [...front, ...zeros, ...back].map((group) => parseInt(group, 16).toString(16));
}

/** A trailing dotted IPv4 part (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) stands for two groups. */
function embeddedIpv4ToGroups(group: string): string[] {
  if (!group.includes(".")) return [group];
  const [a, b, c, d] = group.split(".").map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
