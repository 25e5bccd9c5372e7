// The event types come from the contract: the outbox's list is the spec's EventType enum and each has a webhook.
import { expect } from "chai";
import fs from "node:fs";
import { parse } from "yaml";
import { EVENT_TYPES } from "../../src/kernel/events.ts";

describe("event types (src/events.ts)", () => {
  const spec = parse(fs.readFileSync(new URL("../../openapi.yaml", import.meta.url), "utf8"));

  it("are the EventType enum of openapi.yaml, in its order", () => {
    expect(EVENT_TYPES).to.deep.equal(spec.components.schemas.EventType.enum);
  });

  it("each has a webhook operation in the spec", () => {
    expect(Object.keys(spec.webhooks).sort()).to.deep.equal([...EVENT_TYPES].sort());
  });
});
