// Opaque, time-sortable record identifiers ("crs_01J…"), so ordering by id is
// ordering by creation.
import crypto from "node:crypto";
import { monotonicFactory } from "ulid";

// ulid asks crypto for one byte per random character; every request takes an id
// (its request id), so the bytes are drawn 4 KiB at a time instead.
const randomBytes = Buffer.alloc(4096);
let nextByte = randomBytes.length;

function pooledRandom(): number {
  if (nextByte === randomBytes.length) {
    crypto.randomFillSync(randomBytes);
    nextByte = 0;
  }
  return randomBytes[nextByte++] / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

export type IdPrefix =
  | "org"
  | "key"
  | "oac"
  | "crs"
  | "eq"
  | "eqv"
  | "evt"
  | "wh"
  | "dlv"
  | "ds"
  | "req"
  | "usr"
  | "ses"
  | "aud"
  | "sso";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

export function institutionId(ipedsId: string): string {
  return `inst_${ipedsId}`;
}

/** An institution id as given: `inst_110635`, or the bare IPEDS unit id `110635`, which is the same institution. */
export function institutionIdOf(value: string): string {
  return /^\d+$/.test(value) ? institutionId(value) : value;
}
