// The contract's types. In this repository they come from the project's own
// generated file; the package build (scripts/generate.ts) puts a copy of that
// file in this module's place, so the published package is self-contained.
export type * from "../../generated/api-types.ts";
