// Where the contract lives at run time: the API's root path and the bundled, dereferenced
// document generated from openapi.yaml (`npm run generate`).
import { projectPath } from "./project-root.ts";

export const API_ROOT = "/api/v1";
export const SPEC_PATH = projectPath("generated", "openapi.json");
export const SPEC_YAML_PATH = projectPath("openapi.yaml");
/** The same contract spelled in OpenAPI 3.0.3, for generators that read 3.0 better (docs/partners.md). */
export const SPEC_30_PATH = projectPath("generated", "openapi-3.0.json");
export const SPEC_30_YAML_PATH = projectPath("generated", "openapi-3.0.yaml");
