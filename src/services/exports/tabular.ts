// CSV and JSON renderings of API representations, one text chunk per batch so
// that a chunk, not the table, is what sits in memory.

type Representation = Record<string, unknown>;

/** Nested objects become dotted columns (`sourceCourse.code`); lists are kept as JSON text. */
export function flatten(record: Representation, prefix = ""): Representation {
  const flat: Representation = {};
  for (const [key, value] of Object.entries(record)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(value)) Object.assign(flat, flatten(value, name));
    else flat[name] = Array.isArray(value) ? JSON.stringify(value) : value;
  }
  return flat;
}

function isPlainObject(value: unknown): value is Representation {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

// RFC 4180 ends records with CRLF; a cell holding a bare CR or LF is quoted too,
// as some readers would otherwise end the record there.
//
// A text cell that a spreadsheet would run as a formula (it starts with =, +, -,
// @, tab or carriage return, or their full-width forms) is prefixed with a
// single quote, as OWASP advises against CSV injection: csv-stringify's own
// `escape_formulas`. Numbers are left alone (a negative number stays a number);
// every numeric column of the exports is non-negative anyway.
const CSV_OPTIONS = {
  record_delimiter: "windows",
  quoted_match: /[\r\n]/,
  escape_formulas: true,
  cast: { boolean: (value: boolean) => String(value) },
} as const;

// Loaded with the first CSV export, not with the server (equivalency exports are rendered by the
// database and never need it).
let csvStringify: Promise<typeof import("csv-stringify/sync")> | undefined;
async function loadStringify() {
  csvStringify ??= import("csv-stringify/sync");
  return (await csvStringify).stringify;
}

/** The header row alone. */
export async function csvHeader(columns: readonly string[]): Promise<string> {
  const stringify = await loadStringify();
  return stringify([], { ...CSV_OPTIONS, header: true, columns: [...columns] });
}

/** The header row, then each batch's rows; nulls are empty cells. */
export async function* csvChunks(
  columns: readonly string[],
  batches: AsyncIterable<Representation[]>,
): AsyncGenerator<string> {
  yield await csvHeader(columns);
  const stringify = await loadStringify();
  for await (const batch of batches) {
    yield stringify(
      batch.map((record) => flatten(record)),
      { ...CSV_OPTIONS, columns: [...columns] },
    );
  }
}

/** One JSON array whose elements arrive batch by batch. */
export async function* jsonArrayChunks(
  batches: AsyncIterable<unknown[]>,
  open = "[",
  close = "]\n",
): AsyncGenerator<string> {
  yield open;
  let separator = "\n";
  for await (const batch of batches) {
    yield separator + batch.map((element) => JSON.stringify(element)).join(",\n");
    separator = ",\n";
  }
  yield `\n${close}`;
}
