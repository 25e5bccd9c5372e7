// A small history router: the dashboard's paths live under /dashboard/.
import { useEffect, useState } from "preact/hooks";

export const BASE = "/dashboard";

export function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : "/";
  return path === "" ? "/" : path;
}

export function navigate(path: string, replace = false) {
  const url = `${BASE}${path}`;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  dispatchEvent(new PopStateEvent("popstate"));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    addEventListener("popstate", update);
    return () => removeEventListener("popstate", update);
  }, []);
  return path;
}

/** Matches "/webhooks/:id" against "/webhooks/wh_1"; null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(":")) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

/** Follows same-app links without reloading (a plain click; modified clicks open as usual). */
export function onLinkClick(event: MouseEvent) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const anchor = (event.target as Element).closest("a");
  if (!anchor || anchor.target || anchor.origin !== location.origin) return;
  if (anchor.getAttribute("href")?.startsWith("#")) return;
  if (!anchor.pathname.startsWith(`${BASE}/`) || anchor.pathname.startsWith(`${BASE}/auth/`)) return;
  event.preventDefault();
  navigate(anchor.pathname.slice(BASE.length) + anchor.search);
}
