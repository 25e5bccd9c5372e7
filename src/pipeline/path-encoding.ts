// openapi-backend decodes path parameters with decodeURIComponent, which throws
// on malformed percent-encoding ("%E0%A4%A"); such a parameter is the client's
// mistake, answered 400 with a pointer at it instead of failing as a 500.
import { ValidationError } from "../kernel/errors.ts";

/**
 * The raw (still percent-encoded) segment of each path parameter. `template` is
 * the operation's path ("/webhooks/{id}"), `path` the request's below the API root.
 */
export function pathParameterSegments(template: string, path: string): Map<string, string> {
  const values = path.split("/");
  const segments = new Map<string, string>();
  template.split("/").forEach((segment, index) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (name) segments.set(name, values[index] ?? "");
  });
  return segments;
}

export function rejectMalformedPathEncoding(template: string, path: string): void {
  const errors = [...pathParameterSegments(template, path)]
    .filter(([, segment]) => !decodesAsUri(segment))
    .map(([name]) => ({ pointer: `/path/${name}`, message: "is not valid percent-encoding" }));
  if (errors.length) throw new ValidationError(`${errors[0].pointer}: ${errors[0].message}`, errors);
}

/** Whether `text` (a path or one segment of it) is valid percent-encoding. */
export function decodesAsUri(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
