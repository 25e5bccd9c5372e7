// The dashboard's build and serving: index.html for app routes, hashed assets with a long
// cache and the right types, a self-only CSP, the sign-in routes left alone, and the
// first-load budget (JavaScript and CSS under 250 KB gzipped).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import Koa from "koa";
import supertest from "supertest";
import { expect } from "chai";
import { buildDashboard, type DashboardManifest } from "../../scripts/build-dashboard.ts";
import { Router } from "@koa/router";
import { DASHBOARD_CSP, dashboardPages } from "../../src/dashboard/server/static.ts";

const BUDGET_BYTES = 250 * 1024;

function appServing(directory: string) {
  const koa = new Koa();
  const router = new Router();
  dashboardPages(router, directory);
  koa.use(router.routes());
  koa.use((ctx) => {
    ctx.status = 404;
    ctx.body = "fell through";
  });
  return supertest(koa.callback());
}

describe("dashboard: build and serving", () => {
  let directory: string;
  let manifest: DashboardManifest;
  let http: ReturnType<typeof appServing>;

  before(async () => {
    directory = await fs.mkdtemp(path.join(os.tmpdir(), "dashboard-build-"));
    manifest = await buildDashboard(directory);
    http = appServing(directory);
  });
  after(() => fs.rm(directory, { recursive: true, force: true }));

  it("builds one hashed script and one style sheet, named in index.html", async () => {
    expect(manifest.scripts).to.have.length(1);
    expect(manifest.styles).to.have.length(1);
    expect(manifest.scripts[0]).to.match(/^assets\/main-[A-Z0-9]+\.js$/);
    const index = await fs.readFile(path.join(directory, "index.html"), "utf8");
    expect(index).to.include(`<script type="module" src="/dashboard/${manifest.scripts[0]}"></script>`);
    expect(index).to.include(`<link rel="stylesheet" href="/dashboard/${manifest.styles[0]}">`);
  });

  it("keeps the first load's JavaScript and CSS under 250 KB gzipped", async () => {
    let total = 0;
    for (const file of [...manifest.scripts, ...manifest.styles])
      total += zlib.gzipSync(await fs.readFile(path.join(directory, file)), { level: 9 }).length;
    expect(total).to.be.greaterThan(1000);
    expect(total, `first load is ${total} bytes gzipped`).to.be.below(BUDGET_BYTES);
  });

  it("serves index.html at /dashboard and at every app route, uncached, with a self-only CSP", async () => {
    for (const url of ["/dashboard", "/dashboard/", "/dashboard/webhooks/wh_1", "/dashboard/keys?x=1"]) {
      const response = await http.get(url).expect(200);
      expect(response.headers["content-type"]).to.equal("text/html; charset=utf-8");
      expect(response.headers["cache-control"]).to.equal("no-cache");
      expect(response.headers["content-security-policy"]).to.equal(DASHBOARD_CSP);
      expect(response.headers["x-content-type-options"]).to.equal("nosniff");
      expect(response.text).to.include('<div id="app">');
    }
    expect(DASHBOARD_CSP).to.include("default-src 'self'").and.include("script-src 'self'");
    expect(DASHBOARD_CSP).not.to.match(/unsafe-inline|unsafe-eval|https?:/);
  });

  it("serves hashed assets with their content type and an immutable year-long cache", async () => {
    const script = await http.get(`/dashboard/${manifest.scripts[0]}`).expect(200);
    expect(script.headers["content-type"]).to.equal("text/javascript; charset=utf-8");
    expect(script.headers["cache-control"]).to.equal("public, max-age=31536000, immutable");
    const style = await http.get(`/dashboard/${manifest.styles[0]}`).expect(200);
    expect(style.headers["content-type"]).to.equal("text/css; charset=utf-8");
    await http.get("/dashboard/assets/missing-AAAA.js").expect(404);
    await http.get("/dashboard/assets/..%2Findex.html").expect(404);
  });

  it("leaves the sign-in routes, other methods and other paths to the next middleware", async () => {
    for (const url of ["/dashboard/auth/session", "/dashboard/auth/link?token=x", "/dashboardx", "/api/v1/keys"]) {
      const response = await http.get(url).expect(404);
      expect(response.text).to.equal("fell through");
    }
    expect((await http.post("/dashboard/auth/start").expect(404)).text).to.equal("fell through");
    expect((await http.post("/dashboard/keys").expect(404)).text).to.equal("fell through");
  });

  it("answers 503 with how to build when the build is missing", async () => {
    const empty = await fs.mkdtemp(path.join(os.tmpdir(), "dashboard-empty-"));
    try {
      const response = await appServing(empty).get("/dashboard/").expect(503);
      expect(response.text).to.include("npm run build:dashboard");
    } finally {
      await fs.rm(empty, { recursive: true, force: true });
    }
  });
});
