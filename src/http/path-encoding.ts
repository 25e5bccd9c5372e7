// openapi-backend decodes path parameters with decodeURIComponent, which throws
// on malformed percent-encoding ("%E0%A4%A"); such a parameter is the client's
// mistake, answered 400 with a pointer at it instead of failing as a 500.
import { ValidationError } from "../errors.ts";

/** `template` is the operation's path ("/webhooks/{id}"), `path` the request's below the API root. */
export function rejectMalformedPathEncoding(template: string, path: string): void {
  const values = path.split("/");
  const errors = template.split("/").flatMap((segment, index) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    return name && !decodes(values[index] ?? "") ? [{ pointer: `/path/${name}`, message: "is not valid percent-encoding" }] : [];
  });
  if (errors.length) throw new ValidationError(`${errors[0].pointer}: ${errors[0].message}`, errors);
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}
