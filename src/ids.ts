// Opaque, time-sortable record identifiers ("crs_01J…"), so ordering by id is
// ordering by creation.
import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

export type IdPrefix = "org" | "key" | "oac" | "crs" | "eq" | "eqv" | "evt" | "wh" | "dlv" | "ds" | "req";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

export function institutionId(ipedsId: string): string {
  return `inst_${ipedsId}`;
}
