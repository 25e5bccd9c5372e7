// The `equivalencies` group of the CLI: `equivalencies import` loads a CSV file of equivalency rules
// for one organization and environment through the same import service as POST
// /equivalencies/imports, acting as the operator for that organization (audited as such). Beside a
// running server the command runs in the server, which may not read the operator's files: the CLI
// reads the file (or standard input) and sends its content with the command (fileToForward).
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { Environment } from "../../generated/prisma/enums.ts";
import type { ImportResult } from "../services/rules/import.ts";
import { envOption, orgOption, type WithServices } from "./options.ts";
import { addRuleCommands } from "./rules.ts";
import type { Output } from "./output.ts";
import { operatorCredential, runAsOperator } from "./operator.ts";
import { decodeUtf8Strict, notUtf8Message } from "../kernel/utf8.ts";
import { ValidationError } from "../kernel/errors.ts";

/** A CSV file's text: UTF-8 only, as the API reads it (never decoded with replacement characters). */
function utf8Text(bytes: Buffer, file: string): string {
  const decoded = decodeUtf8Strict(bytes);
  if ("invalidAt" in decoded) throw ValidationError.single("", notUtf8Message(file, decoded));
  return decoded.text;
}

/** Where the import's CSV comes from: the content the CLI sent over the channel, else the file or stdin here. */
export interface ImportInput {
  /** The file's content, read by the CLI that forwarded the command. */
  forwarded?: string;
  /** Resolves a path as typed, relative to the directory the command was typed in, and checks it is readable. */
  readablePath(file: string): string;
  /** Standard input (`--file -`). */
  readStdin(): Promise<string>;
}

/**
 * What a command reads that the server cannot: the file named by `equivalencies import --file`
 * or `evaluate --file` (or standard input), and the secret `sso add-oidc --client-secret-stdin` reads from standard
 * input. The CLI sends it along when it forwards the command.
 */
export function fileToForward(argv: readonly string[], readStdin: () => string, cwd: string): string | undefined {
  const words = argv.filter((word) => !word.startsWith("-"));
  if (words[0] === "sso" && words[1] === "add-oidc")
    return argv.includes("--client-secret-stdin") ? readStdin() : undefined;
  const readsFile = (words[0] === "equivalencies" && words[1] === "import") || words[0] === "evaluate";
  if (!readsFile) return undefined;
  const at = argv.findIndex((word) => word === "--file" || word.startsWith("--file="));
  if (at < 0) return undefined;
  const file = argv[at].startsWith("--file=") ? argv[at].slice("--file=".length) : argv[at + 1];
  if (file === undefined) return undefined;
  if (file === "-") return readStdin();
  try {
    return utf8Text(fs.readFileSync(path.resolve(cwd, file)), file);
  } catch {
    // Unreadable here: the command then says why, as it would without a server.
    return undefined;
  }
}

function describe(result: ImportResult, file: string): string {
  const { summary } = result;
  const counts =
    `${result.dryRun ? "Dry run, nothing written: " : ""}${summary.received} row(s) of ${file}: ` +
    `${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ` +
    `${summary.conflict} in conflict, ${summary.rejected} rejected.`;
  const issues = result.issues.map(
    (issue) => `  row ${issue.row}${issue.column ? `, ${issue.column}` : ""}: ${issue.message}`,
  );
  return [counts, ...issues].join("\n");
}

export function addEquivalenciesCommands(
  program: Command,
  output: Output,
  withServices: WithServices,
  input: ImportInput,
): void {
  const equivalencies = program.command("equivalencies").description("Equivalency rules: list, show, create, import");
  addRuleCommands(equivalencies, output, withServices);
  equivalencies
    .command("import")
    .description(
      "Import equivalency rules from a CSV file (the columns of POST /equivalencies/imports) for an organization; " +
        "exits 1 when rows had issues",
    )
    .addOption(orgOption("the organization the rules are written for (--organization)").makeOptionMandatory())
    .addOption(envOption())
    .requiredOption("--file <path.csv>", "the CSV file, or - for standard input")
    .option("--dry-run", "check every row and report, writing nothing")
    .action((opts: { org: string; env: Environment; file: string; dryRun?: boolean }) => {
      const fromHere = () =>
        opts.file === "-"
          ? input.readStdin()
          : fs.promises.readFile(input.readablePath(opts.file)).then((bytes) => utf8Text(bytes, opts.file));
      return withServices(async (services) => {
        const csv = input.forwarded ?? (await fromHere());
        const org = await services.organizations.getOrganizationBySlug(opts.org);
        const operator = operatorCredential({
          organizationId: org.id,
          organizationSlug: org.slug,
          channel: org.source,
          environment: opts.env,
        });
        const result = await runAsOperator(
          "equivalencies import",
          () => services.equivalencyImport.importEquivalencies(operator, csv, { dryRun: opts.dryRun === true }),
          operator,
        );
        output.result(result, describe(result, opts.file === "-" ? "standard input" : opts.file));
        if (result.issues.length) output.setExitCode(1);
      });
    });
}
