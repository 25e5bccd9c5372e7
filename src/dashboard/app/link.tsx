// A link within the dashboard, by its path under the dashboard's base. A module of its own so the
// names (names.tsx) can link to records while ui.tsx names the records in server texts.
import type { ComponentChildren } from "preact";
import { BASE } from "./router.ts";

export function Link({
  to,
  children,
  ...rest
}: {
  to: string;
  children: ComponentChildren;
  class?: string;
  title?: string;
}) {
  return (
    <a href={`${BASE}${to}`} {...rest}>
      {children}
    </a>
  );
}
