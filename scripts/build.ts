// `npm run build` (npm's `prepare` after `npm ci`, and `prestart`): the dashboard, the public
// explorer, the compiled server and the embedded database's template, in one process. The template is
// made only when the installed PGlite's is missing; the others take well under a second.
import path from "node:path";
import { buildDashboard, DASHBOARD_OUTPUT } from "./build-dashboard.ts";
import { buildExplorer, EXPLORER_OUTPUT } from "./build-explorer.ts";
import { buildServer, SERVER_OUTPUT } from "./build-server.ts";
import { buildDatabaseTemplate } from "./build-database-template.ts";
import { embeddedTemplatePath } from "../src/db/embedded-template.ts";

const relative = (file: string) => path.relative(process.cwd(), file);
const [dashboard, explorer, server] = await Promise.all([buildDashboard(), buildExplorer(), buildServer()]);
process.stdout.write(
  `Dashboard built into ${relative(DASHBOARD_OUTPUT)}/ (${[...dashboard.scripts, ...dashboard.styles].join(", ")})\n` +
    `Explorer built into ${relative(EXPLORER_OUTPUT)}/ (${explorer.join(", ")})\n` +
    `Server built into ${relative(SERVER_OUTPUT)}/ (${server.files.length} files)\n`,
);
const template = embeddedTemplatePath();
if (await buildDatabaseTemplate(template))
  process.stdout.write(`Embedded database template written to ${relative(template)}\n`);
