// Types shared by services: the database handle and the generated enums.
export type { Db } from "../db/database.ts";
export type {
  Channel,
  Environment,
  InstitutionType,
  CourseLevel,
  CreditUnit,
  EquivalencyStatus,
  RuleKind,
  TargetChoice,
} from "../../generated/prisma/client.ts";

export type { Page, PageResult } from "../repositories/paging.ts";

/** The largest value of a PostgreSQL `integer` column (version numbers, declared counts). */
export const MAX_INT4 = 2_147_483_647;
