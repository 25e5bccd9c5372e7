// Entry of the embedded database's thread when the service runs from TypeScript
// sources (npm start runs tsx): in Node 20 the TypeScript loader of the main
// thread does not reach worker threads, so the database thread registers it for itself.
import { register } from "tsx/esm/api";

register();
await import("./embedded-thread.ts");
