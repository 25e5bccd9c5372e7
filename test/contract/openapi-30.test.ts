// The OpenAPI 3.0.3 rendition of the contract (generated/openapi-3.0.{json,yaml}, docs/partners.md)
// is served beside the 3.1 document, without credentials, byte for byte as generated.
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import YAML from "yaml";
import { createTestApp, type TestApp } from "../helpers/app.ts";

const GENERATED = path.resolve(import.meta.dirname, "../../generated");

describe("the OpenAPI 3.0.3 rendition", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("is served as JSON without credentials, as generated", async () => {
    const response = await t.http.get("/api/v1/openapi-3.0.json").buffer(true);
    expect(response.status).to.equal(200);
    expect(response.headers["content-type"]).to.contain("application/json");
    expect(response.text).to.equal(fs.readFileSync(path.join(GENERATED, "openapi-3.0.json"), "utf8"));
    expect(response.body.openapi).to.equal("3.0.3");
    const current = await t.http.get("/api/v1/openapi.json");
    expect(response.body.info.version).to.equal(current.body.info.version);
  });

  it("is served as YAML without credentials, the same document", async () => {
    const response = await t.http.get("/api/v1/openapi-3.0.yaml").buffer(true);
    expect(response.status).to.equal(200);
    expect(response.headers["content-type"]).to.contain("yaml");
    expect(response.text).to.equal(fs.readFileSync(path.join(GENERATED, "openapi-3.0.yaml"), "utf8"));
    const { "x-generated": _, ...json } = JSON.parse(fs.readFileSync(path.join(GENERATED, "openapi-3.0.json"), "utf8"));
    expect(YAML.parse(response.text)).to.deep.equal(json);
  });

  it("is listed by GET /", async () => {
    const response = await t.http.get("/");
    expect(response.body.openapi30).to.equal("/api/v1/openapi-3.0.json");
  });
});
