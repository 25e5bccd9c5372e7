// Bulk export of one resource of one environment as a stream: CSV, a JSON array,
// or (equivalencies only) CTDL JSON-LD. Rows are read in keyset batches and each
// batch is rendered as one chunk, so memory holds about one batch at a time.
//
// A failure while reading the first batch is thrown (the caller can still answer
// with a problem); a later one destroys the stream with the error, which truncates
// the response, since its status and headers are already sent.
import { Readable } from "node:stream";
import { ValidationError } from "../../kernel/errors.ts";
import type { Environment } from "../types.ts";
import type { Credential } from "../../auth/credential.ts";
import type { Repositories } from "../../repositories/index.ts";
import type { ExportsRepository } from "../../repositories/exports.ts";
import { courseView, equivalencyView, institutionView } from "../../views/catalog.ts";
import { DEFAULT_BATCH_SIZE, openBatches, type BatchReader } from "./batches.ts";
import { CTDL_CLOSE, CTDL_OPEN } from "./ctdl.ts";
import { csvChunks, csvHeader, jsonArrayChunks } from "./tabular.ts";
import { createExportSlots, createGate, DEFAULT_EXPORT_LIMITS, type ExportLimits } from "./limits.ts";
import { RULE_SCALAR_FIELDS } from "../rules/model.ts";
import type { BatchKey, RenderedBatch } from "../../repositories/exports.ts";
import { copiedExport } from "./copied.ts";

export { LICENSE_URL } from "./ctdl.ts";

export type ExportResource = "equivalencies" | "courses" | "institutions";
export type ExportFormat = "csv" | "json" | "ctdl";

export interface ExportOptions {
  batchSize?: number;
  /**
   * Rows per batch of the CSV the database renders: its text is all a batch holds (about
   * 1 MB at 5,000 rows), and fewer round trips let it keep up with the client.
   */
  renderedBatchSize?: number;
}

export const DEFAULT_RENDERED_BATCH_SIZE = 5_000;

export interface Export {
  stream: Readable;
  contentType: string;
  extension: string;
}

/**
 * Equivalency CSV columns that are not fields of the API representation: the source course ids
 * (a JSON array) and what a registrar reads beside the ids. Lists are joined by " | ", in order.
 */
export const EQUIVALENCY_NAME_COLUMNS = [
  "sourceCourseIds",
  "sourceCourseCodes",
  "sourceCourseTitles",
  "sourceInstitutionName",
  "targetInstitutionName",
  "targetCodes",
  "targetCourseTitles",
] as const;

/** CSV columns: the fields of each resource's API representation (src/views/catalog.ts), in order. */
export const CSV_COLUMNS: Record<ExportResource, readonly string[]> = {
  institutions: ["id", "ipedsId", "name", "city", "state", "type", "system", "source"],
  courses: [
    "id",
    "institutionId",
    "code",
    "title",
    "credits",
    "creditUnit",
    "level",
    "description",
    "cipCode",
    "version",
    "updatedAt",
    // 1.2.0: a JSON array, as sourceCourseIds in the equivalency CSV.
    "crossListedCodes",
  ],
  equivalencies: [
    "id",
    "sourceCourseId",
    "targetInstitutionId",
    "targetCourseId",
    "targetCode",
    "status",
    "decidedBy",
    "decidedAt",
    "policyBasis",
    "version",
    "provenance",
    "datasetVersionId",
    "createdAt",
    "updatedAt",
    // 1.1.0: the rule, with names beside the ids (docs/exports.md).
    ...EQUIVALENCY_NAME_COLUMNS,
    ...RULE_SCALAR_FIELDS,
    // 1.2.0: alternatives and choices, by id and as the import writes them (docs/exports.md).
    "sourceCourseSets",
    "sourceCourseSetCodes",
    "targetChoice",
    "targetCourseCodes",
  ],
};

const MEDIA_TYPES: Record<ExportFormat, { contentType: string; extension: string }> = {
  csv: { contentType: "text/csv; charset=utf-8", extension: "csv" },
  json: { contentType: "application/json", extension: "json" },
  ctdl: { contentType: "application/ld+json", extension: "jsonld" },
};

export function createExportsService({
  exports,
  batchSize = DEFAULT_BATCH_SIZE,
  renderedBatchSize = DEFAULT_RENDERED_BATCH_SIZE,
  limits = DEFAULT_EXPORT_LIMITS,
}: Pick<Repositories, "exports"> & ExportOptions & { limits?: ExportLimits }) {
  const slots = createExportSlots(limits.perOrganization);
  const gate = createGate(limits.databaseConnections);
  const gated = gatedReads(exports, gate);
  return {
    /**
     * A whole resource of the caller's environment, as a stream in the format asked for. The
     * organization's slot is held until the stream closes (read to the end, failed or abandoned).
     */
    async exportData(caller: Credential, resource: ExportResource, format: ExportFormat): Promise<Export> {
      refuseCtdlOf(resource, format);
      const release = slots.claim(caller.organizationId);
      try {
        const copied =
          resource === "equivalencies"
            ? await copiedExport(exports, gate, caller.environment, format, await frameOf(format))
            : null;
        const chunks =
          copied?.chunks ??
          (await renderedChunks(gated, caller.environment, resource, format, { batchSize, renderedBatchSize }));
        const stream = Readable.from(chunks, { objectMode: false });
        stream.once("close", () => {
          copied?.close();
          release();
        });
        return { stream, ...MEDIA_TYPES[format] };
      } catch (error) {
        release();
        throw error;
      }
    },
  };
}

/** The repository's batch readers, each answering a plain promise. */
type ExportReads = {
  [K in Extract<keyof ExportsRepository, `${string}Batches`>]: (
    environment: Environment,
  ) => (
    ...args: Parameters<ReturnType<ExportsRepository[K]>>
  ) => Promise<Awaited<ReturnType<ReturnType<ExportsRepository[K]>>>>;
};

/** The batch readers of the repository, each read passed through the gate that bounds the connections exports hold. */
function gatedReads(exports: ExportsRepository, through: <T>(task: () => Promise<T>) => Promise<T>): ExportReads {
  const gate =
    <A extends unknown[], T>(read: (...args: A) => Promise<T>) =>
    (...args: A) =>
      through(() => read(...args));
  return {
    institutionBatches: (environment) => gate(exports.institutionBatches(environment)),
    courseBatches: (environment) => gate(exports.courseBatches(environment)),
    equivalencyBatches: (environment) => gate(exports.equivalencyBatches(environment)),
    equivalencyCsvBatches: (environment) => gate(exports.equivalencyCsvBatches(environment)),
    equivalencyJsonBatches: (environment) => gate(exports.equivalencyJsonBatches(environment)),
    equivalencyCtdlBatches: (environment) => gate(exports.equivalencyCtdlBatches(environment)),
  };
}

export type ExportsService = ReturnType<typeof createExportsService>;

async function renderedChunks(
  exports: ExportReads,
  environment: Environment,
  resource: ExportResource,
  format: ExportFormat,
  { batchSize, renderedBatchSize }: Required<ExportOptions>,
): Promise<AsyncIterable<string | Buffer>> {
  // The equivalency exports are rendered by the database: the main thread only passes their text on.
  if (format === "csv" && resource === "equivalencies") {
    const read = exports.equivalencyCsvBatches(environment);
    const batches = (after: BatchKey | null, take: number) =>
      read(after, take).then(({ csv, ...b }) => ({ text: csv, ...b }));
    return databaseChunks(await frameOf("csv"), batches, renderedBatchSize);
  }
  if (format === "json" && resource === "equivalencies")
    return databaseChunks(await frameOf("json"), exports.equivalencyJsonBatches(environment), renderedBatchSize);
  if (format === "ctdl" && resource === "equivalencies")
    return databaseChunks(await frameOf("ctdl"), exports.equivalencyCtdlBatches(environment), renderedBatchSize);
  const views = await viewBatches(exports, environment, resource, batchSize);
  return format === "csv" ? csvChunks(CSV_COLUMNS[resource], views) : jsonArrayChunks(views);
}

/** CTDL is a graph of equivalencies: another resource is refused before anything is read. */
function refuseCtdlOf(resource: ExportResource, format: ExportFormat): void {
  if (format === "ctdl" && resource !== "equivalencies")
    throw new ValidationError("format=ctdl exports equivalencies only.", [
      { pointer: "/query/format", message: "ctdl is only available for resource=equivalencies" },
    ]);
}

async function viewBatches(
  exports: ExportReads,
  environment: Environment,
  resource: ExportResource,
  batchSize: number,
) {
  switch (resource) {
    case "institutions":
      return viewsOf(exports.institutionBatches(environment), institutionView, batchSize);
    case "courses":
      return viewsOf(exports.courseBatches(environment), courseView, batchSize);
    case "equivalencies":
      return viewsOf(exports.equivalencyBatches(environment), equivalencyView, batchSize);
  }
}

async function viewsOf<Row>(read: BatchReader<Row>, view: (row: Row) => Record<string, unknown>, batchSize: number) {
  return mapBatches(await openBatches(read, batchSize), view);
}

async function* mapBatches<Row, Out>(batches: AsyncIterable<Row[]>, map: (row: Row) => Out): AsyncGenerator<Out[]> {
  for await (const batch of batches) yield batch.map(map);
}

/**
 * What the database's rendering of the equivalency exports is framed by: the CSV header; the JSON
 * array's brackets, and the CTDL graph's (a COPY's elements each start with ",\n": the first one's
 * comma is skipped).
 */
async function frameOf(format: ExportFormat): Promise<{ open: string; close: string; skip?: number }> {
  switch (format) {
    case "csv":
      return { open: await csvHeader(CSV_COLUMNS.equivalencies), close: "" };
    case "json":
      return { open: "[", close: "\n]\n", skip: 1 };
    case "ctdl":
      return { open: CTDL_OPEN, close: `\n${CTDL_CLOSE}`, skip: 1 };
  }
}

/** The opening text, then batches of text the database rendered, then the closing text; the first batch is read before the stream starts. */
async function databaseChunks(
  frame: { open: string; close: string },
  read: (after: BatchKey | null, take: number) => Promise<RenderedBatch>,
  batchSize: number,
): Promise<AsyncIterable<string | Buffer>> {
  const first = await read(null, batchSize);
  return (async function* () {
    yield frame.open;
    let batch = first;
    for (;;) {
      if (batch.rows) yield batch.text;
      if (batch.rows < batchSize) break;
      batch = await read(batch, batchSize);
    }
    if (frame.close) yield frame.close;
  })();
}
