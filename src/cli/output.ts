// How the CLI prints: human text by default, JSON with --json; a progress bar
// only when standard error is a terminal.
import cliProgress from "cli-progress";

export interface Output {
  setJson(json: boolean): void;
  result(data: unknown, text: string): void;
  /** One record of a stream of them: a line of text, or with --json one line of JSON (JSON Lines). */
  line(data: unknown, text: string): void;
  table(rows: object[], columns: string[]): void;
  /** One line on standard error (a command that fails after printing its result). */
  error(text: string): void;
  /** The exit code when the command returns without throwing (0 unless set). */
  setExitCode(code: number): void;
  readonly exitCode: number;
  readonly json: boolean;
  /** Standard error is the typing person's terminal: a progress bar may be drawn there. */
  readonly interactive: boolean;
}

export function createOutput(
  write: (text: string) => void = (t) => process.stdout.write(t),
  interactive: boolean = Boolean(process.stderr.isTTY),
  writeErr: (text: string) => void = (t) => process.stderr.write(t),
): Output {
  let json = false;
  let exitCode = 0;
  return {
    get json() {
      return json;
    },
    get exitCode() {
      return exitCode;
    },
    interactive,
    setJson(value) {
      json = value;
    },
    setExitCode(code) {
      exitCode = code;
    },
    error(text) {
      writeErr(`error: ${text}\n`);
    },
    result(data, text) {
      write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);
    },
    line(data, text) {
      write(json ? `${JSON.stringify(data)}\n` : `${text}\n`);
    },
    table(rows, columns) {
      if (json) return write(`${JSON.stringify(rows, null, 2)}\n`);
      if (!rows.length) return write("(none)\n");
      const cell = (row: object, c: string) => {
        const value = (row as Record<string, unknown>)[c];
        return value === null || value === undefined
          ? "-"
          : Array.isArray(value)
            ? value.join(",")
            : value instanceof Date
              ? value.toISOString()
              : String(value);
      };
      const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r, c).length)));
      const line = (values: string[]) =>
        values
          .map((v, i) => v.padEnd(widths[i]))
          .join("  ")
          .trimEnd();
      write(`${[line(columns), ...rows.map((r) => line(columns.map((c) => cell(r, c))))].join("\n")}\n`);
    },
  };
}

export function createProgress(output: Output, unit: string, total: number) {
  if (output.json || !output.interactive) return { update: (_n: number) => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: `{bar} {value}/{total} ${unit}`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return { update: (n: number) => bar.update(n), stop: () => bar.stop() };
}
