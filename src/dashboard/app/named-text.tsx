// The server's texts (a problem's detail, an import's or a dataset's row issue) name records by
// id, for the API's callers; people read them with names. A course, an institution or a rule
// named by its id alone is named instead (the id on hover); an id in parentheses only repeats the
// name before it ("Santa Monica College (inst_122977)"), so it is left out.
import type { ComponentChildren } from "preact";
import { useContext } from "preact/hooks";
import { DashboardContext } from "./context.ts";
import { CourseName, InstitutionName } from "./names.tsx";
import { RuleName } from "./rule-words.tsx";

/** The prefixes of the service's ids (src/kernel/ids.ts), and institutions' `inst_`. */
const PREFIXES = "inst|org|key|oac|crs|eqv|eq|evt|wh|dlv|ds|req|usr|ses|aud|sso";
const IDS = new RegExp(`\\s?\\((?:${PREFIXES})_\\w+\\)|\\b(crs|inst|eq)_[0-9A-Za-z]+\\b`, "g");

function Named({ prefix, id }: { prefix: string; id: string }) {
  if (prefix === "crs") return <CourseName id={id} />;
  if (prefix === "inst") return <InstitutionName id={id} />;
  return <RuleName id={id} />;
}

export function NamedText({ text }: { text: string }) {
  // Before sign-in (the sign-in page's errors) there is no API to read names with.
  if (!useContext(DashboardContext)) return <>{text}</>;
  const parts: ComponentChildren[] = [];
  let from = 0;
  for (const match of text.matchAll(IDS)) {
    const [whole, prefix] = match;
    parts.push(text.slice(from, match.index));
    if (prefix) parts.push(<Named key={match.index} prefix={prefix} id={whole} />);
    from = match.index + whole.length;
  }
  parts.push(text.slice(from));
  return <>{parts}</>;
}
