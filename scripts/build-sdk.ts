// Builds the publishable client package (generated/client/) from the
// hand-written runtime in sdk/src and the generated contract types: the
// TypeScript compiler emits an ESM and a CommonJS build, each with .d.ts.
// Returns file contents by path under generated/client/; writes nothing there.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export const SDK_PACKAGE_NAME = "@course-equivalency/client";

interface SdkBuildInput {
  root: string;
  /** The contents of generated/api-types.ts, compiled in place of sdk/src/api-types.ts. */
  apiTypes: string;
  /** openapi.yaml's info.version. */
  version: string;
  header: string;
}

const FORMATS = [
  { name: "esm", packageType: "module" },
  { name: "cjs", packageType: "commonjs" },
] as const;

export function buildSdk(input: SdkBuildInput): Map<string, string> {
  const sourceDir = path.join(input.root, "sdk/src");
  // Inside node_modules, so that openapi-fetch and @types/node resolve from the project.
  const cacheDir = path.join(input.root, "node_modules/.cache");
  fs.mkdirSync(cacheDir, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(cacheDir, "sdk-build-"));
  try {
    const outputs = new Map<string, string>();
    for (const format of FORMATS) {
      const formatDir = path.join(scratch, format.name);
      copySources(sourceDir, path.join(formatDir, "src"), input.apiTypes);
      // NodeNext takes each file's module format from the nearest package.json.
      fs.writeFileSync(path.join(formatDir, "package.json"), JSON.stringify({ type: format.packageType }));
      for (const [file, text] of compile(input.root, formatDir))
        outputs.set(`dist/${format.name}/${file}`, `// ${input.header}\n${text}`);
    }
    outputs.set("dist/cjs/package.json", `${JSON.stringify({ "//": input.header, type: "commonjs" }, null, 2)}\n`);
    outputs.set("package.json", packageJson(input));
    outputs.set(
      "README.md",
      `<!-- ${input.header} -->\n${fs.readFileSync(path.join(input.root, "sdk/README.md"), "utf8")}`,
    );
    return new Map([...outputs].sort(([a], [b]) => (a < b ? -1 : 1)));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function copySources(from: string, to: string, apiTypes: string) {
  fs.mkdirSync(to, { recursive: true });
  for (const name of fs
    .readdirSync(from)
    .filter((file) => file.endsWith(".ts"))
    .sort()) {
    const text = name === "api-types.ts" ? apiTypes : fs.readFileSync(path.join(from, name), "utf8");
    fs.writeFileSync(path.join(to, name), text);
  }
}

function compile(root: string, formatDir: string): Map<string, string> {
  const sourceDir = path.join(formatDir, "src");
  const outDir = path.join(formatDir, "dist");
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    esModuleInterop: true,
    strict: true,
    declaration: true,
    skipLibCheck: true,
    types: ["node"],
    typeRoots: [path.join(root, "node_modules/@types")],
    rootDir: sourceDir,
    outDir,
    newLine: ts.NewLineKind.LineFeed,
  };
  const files = fs
    .readdirSync(sourceDir)
    .sort()
    .map((name) => path.join(sourceDir, name));
  const program = ts.createProgram(files, options);
  const emitted = new Map<string, string>();
  const result = program.emit(undefined, (fileName, text) =>
    emitted.set(path.relative(outDir, fileName).split(path.sep).join("/"), text),
  );
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length) {
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
    throw new Error(`The SDK does not compile:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
  return emitted;
}

function packageJson(input: SdkBuildInput): string {
  const project = JSON.parse(fs.readFileSync(path.join(input.root, "package.json"), "utf8"));
  const manifest = {
    "//": input.header,
    name: SDK_PACKAGE_NAME,
    version: input.version,
    description:
      "Typed client for the Course and Equivalency Repository API: resource helpers, paging, retries, OAuth and webhook verification.",
    license: project.license,
    type: "module",
    engines: { node: ">=20" },
    main: "./dist/cjs/index.js",
    module: "./dist/esm/index.js",
    types: "./dist/esm/index.d.ts",
    exports: {
      ".": {
        import: { types: "./dist/esm/index.d.ts", default: "./dist/esm/index.js" },
        require: { types: "./dist/cjs/index.d.ts", default: "./dist/cjs/index.js" },
      },
      "./package.json": "./package.json",
    },
    files: ["dist", "README.md"],
    sideEffects: false,
    dependencies: {
      "openapi-fetch": project.dependencies["openapi-fetch"] ?? project.devDependencies["openapi-fetch"],
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
