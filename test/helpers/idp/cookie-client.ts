// An HTTP client that behaves like a browser where sign-in flows need it: it
// keeps cookies per origin (honouring Max-Age=0 and Path) and follows redirects
// itself, one hop at a time, so a test sees (and may alter) every step.
export interface Hop {
  url: string;
  status: number;
  location: string | null;
}

interface StoredCookie {
  value: string;
  path: string;
}

export class CookieClient {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  /** The cookies this client would send to that URL. */
  cookieHeader(url: string): string {
    const { origin, pathname } = new URL(url);
    return [...(this.jar.get(origin) ?? new Map<string, StoredCookie>()).entries()]
      .filter(([, cookie]) => pathname === cookie.path || pathname.startsWith(cookie.path.replace(/\/?$/, "/")))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join("; ");
  }

  cookie(origin: string, name: string): string | undefined {
    return this.jar.get(new URL(origin).origin)?.get(name)?.value;
  }

  private store(url: string, response: Response) {
    const { origin } = new URL(url);
    const cookies = this.jar.get(origin) ?? new Map<string, StoredCookie>();
    this.jar.set(origin, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";").map((part) => part.trim());
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      const attribute = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const expires = attribute("expires");
      const expired = attribute("max-age") === "0" || (expires !== undefined && Date.parse(expires) <= Date.now());
      if (expired || value === "") cookies.delete(name);
      else cookies.set(name, { value, path: attribute("path") ?? "/" });
    }
  }

  /** One request, no redirect followed. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url);
    if (cookie) headers.set("cookie", cookie);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    this.store(url, response);
    return response;
  }

  postJson(url: string, body: unknown): Promise<Response> {
    return this.request(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  postForm(url: string, fields: Record<string, string>): Promise<Response> {
    return this.request(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /**
   * GETs `url` and follows redirects until one leads to a URL for which `stop`
   * answers true (not requested), or a response is not a redirect (returned).
   * `rewrite` may alter each next URL before it is requested.
   */
  async follow(
    url: string,
    options: { stop?: (next: URL) => boolean; rewrite?: (next: URL) => URL; maxHops?: number } = {},
  ): Promise<{ response: Response | null; hops: Hop[]; stoppedAt: URL | null }> {
    const hops: Hop[] = [];
    let next = new URL(url);
    for (let i = 0; i < (options.maxHops ?? 15); i++) {
      if (options.rewrite) next = options.rewrite(next);
      const response = await this.request(next.href);
      const location = response.headers.get("location");
      hops.push({ url: next.href, status: response.status, location });
      if (response.status < 300 || response.status >= 400 || !location) return { response, hops, stoppedAt: null };
      await response.arrayBuffer();
      next = new URL(location, next);
      if (options.stop?.(next)) return { response: null, hops, stoppedAt: next };
    }
    throw new Error(`too many redirects: ${hops.map((h) => h.url).join(" -> ")}`);
  }
}
