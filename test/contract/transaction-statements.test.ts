// A transaction's statements reach its one connection one at a time, on both databases.
// Before src/db/serial-transactions.ts, an equivalency's update sent the statements of one
// relation load (and the two stewardship lookups) together, and node-postgres queued them
// on the connection itself, a use it deprecates (removed in pg 9).
import { expect } from "chai";
import pg from "pg";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { COURSES, loadInstitutions, postCourses } from "../helpers/fixtures.ts";
import { EmbeddedEngine } from "../../src/db/embedded-engine.ts";
import type { EngineRequest } from "../../src/db/embedded-protocol.ts";

/** Statements sent to a connection (a pg client, or an embedded transaction) while one of its own was still running. */
function watchOverlaps(): { overlaps: string[]; stop(): void } {
  const overlaps: string[] = [];
  const pgQuery = pg.Client.prototype.query;
  const engineCall = EmbeddedEngine.prototype.call;
  const running = new Map<unknown, number>();
  const track = <T>(connection: unknown, statement: string, result: T): T => {
    if (!(result instanceof Promise)) return result;
    if (running.get(connection)) overlaps.push(statement);
    running.set(connection, (running.get(connection) ?? 0) + 1);
    const done = () => running.set(connection, running.get(connection)! - 1);
    result.then(done, done);
    return result;
  };
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    const text = typeof config === "string" ? config : (config?.text ?? "");
    return track(this, text, (pgQuery as (...a: unknown[]) => unknown).apply(this, args));
  } as typeof pgQuery;
  EmbeddedEngine.prototype.call = function (this: EmbeddedEngine, request: EngineRequest) {
    const tx = "tx" in request ? request.tx : undefined;
    const text = "query" in request && typeof request.query === "object" ? request.query.sql : request.op;
    const result = engineCall.call(this, request);
    return tx === undefined ? result : track(`${tx}`, text, result);
  } as typeof engineCall;
  return {
    overlaps,
    stop() {
      pg.Client.prototype.query = pgQuery;
      EmbeddedEngine.prototype.call = engineCall;
    },
  };
}

describe("transactions: updateEquivalency (PATCH /equivalencies/{id}) sends one statement at a time", () => {
  let t: TestApp;
  let equivalency: string;

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const c = await postCourses(t, Object.values(COURSES));
    const created = await t.http
      .post("/api/v1/equivalencies")
      .set(bearer(t.keys.live))
      .send({ sourceCourseId: c["CS 55"], targetInstitutionId: "inst_110635", targetCourseId: c["CS 61B"] });
    await expectContract(created, 201);
    equivalency = created.body.data.id;
  });
  after(() => t?.close());

  it("updateEquivalency: no statement of its transaction is sent while another is running", async () => {
    const watch = watchOverlaps();
    try {
      const updated = await t.http
        .patch(`/api/v1/equivalencies/${equivalency}`)
        .set(bearer(t.keys.live))
        .send({ status: "accepted", note: "Reviewed." });
      await expectContract(updated, 200);
      expect(updated.body.data.version).to.equal(2);
    } finally {
      watch.stop();
    }
    expect(watch.overlaps).to.deep.equal([]);
  });
});
