// The idempotency service's rules (the Idempotency-Key of upsertCourses and
// createEquivalency), against an in-memory fake of its repository.
import { expect } from "chai";
import type { IdempotencyRecord } from "../../generated/prisma/client.ts";
import type { Credential } from "../../src/auth/credential.ts";
import { ProblemError } from "../../src/kernel/errors.ts";
import {
  ClaimLostError,
  IN_PROGRESS,
  type IdempotencyClaim,
  type IdempotencyRepository,
  type IdempotencyScope,
} from "../../src/repositories/idempotency.ts";
import { createIdempotencyService, RETENTION_MS, type StoredResponse } from "../../src/services/idempotency.ts";

const caller = { id: "key_1", organizationId: "org_1", environment: "live" } as Credential;

/** Records keyed by organization, environment, credential and key, as the table's primary key is. */
function fakeRepository() {
  const records = new Map<string, IdempotencyRecord>();
  const sweeps: Date[] = [];
  const id = (scope: IdempotencyScope) =>
    [scope.organizationId, scope.environment, scope.credentialId, scope.key].join("\u0000");
  const idempotency: IdempotencyRepository = {
    async claim(claim: IdempotencyClaim) {
      const held = records.get(id(claim));
      // The same request takes over a key still in progress (as the table's statement does).
      const sameRequest = held?.requestHash === claim.fingerprint && held.operationId === claim.operationId;
      if (held && !(held.responseStatus === IN_PROGRESS && sameRequest)) return false;
      records.set(id(claim), {
        organizationId: claim.organizationId,
        environment: claim.environment,
        credentialId: claim.credentialId,
        key: claim.key,
        operationId: claim.operationId,
        requestHash: claim.fingerprint,
        responseStatus: IN_PROGRESS,
        responseBody: null,
        claimToken: claim.token,
        createdAt: new Date(0),
      });
      return true;
    },
    find: async (scope) => records.get(id(scope)) ?? null,
    async storeResponse(scope, token, status, response) {
      const record = records.get(id(scope));
      if (record?.claimToken !== token || record.responseStatus !== IN_PROGRESS) throw new ClaimLostError("taken over");
      records.set(id(scope), { ...record, responseStatus: status, responseBody: response as never });
    },
    async release(scope, token) {
      if (records.get(id(scope))?.claimToken === token) records.delete(id(scope));
    },
    deleteCreatedBefore: async (cutoff) => void sweeps.push(cutoff),
  };
  return { idempotency, records, sweeps };
}

const request = (body: unknown, key: string | undefined = "k1") => ({
  key,
  operationId: "upsertCourses",
  query: { dryRun: false },
  body,
});

describe("idempotency service (withIdempotency, for upsertCourses and createEquivalency)", () => {
  it("runs a request without a key every time and stores nothing", async () => {
    const { idempotency, records } = fakeRepository();
    const service = createIdempotencyService({ idempotency });
    let runs = 0;
    for (let i = 0; i < 2; i++)
      await service.withIdempotency(caller, { ...request({ a: 1 }), key: undefined }, async () => ({
        status: 201,
        body: ++runs,
      }));
    expect(runs).to.equal(2);
    expect(records.size).to.equal(0);
  });

  it("replays the stored response for the same request, marked Idempotent-Replayed, without running it again", async () => {
    const { idempotency } = fakeRepository();
    const service = createIdempotencyService({ idempotency });
    let runs = 0;
    const run = async () => ({ status: 201, body: { run: ++runs }, headers: { ETag: '"x"' } });
    const first = await service.withIdempotency(caller, request({ a: 1, b: 2 }), run);
    // The same body with its keys in another order is the same request.
    const again = await service.withIdempotency(caller, request({ b: 2, a: 1 }), run);
    expect(runs).to.equal(1);
    expect(first).to.deep.equal({ status: 201, body: { run: 1 }, headers: { ETag: '"x"' } });
    expect(again).to.deep.equal({
      status: 201,
      body: { run: 1 },
      headers: { ETag: '"x"', "Idempotent-Replayed": "true" },
    });
  });

  it("refuses the key with a different request (idempotency-key-reused), also while the first is in progress", async () => {
    const { idempotency, records } = fakeRepository();
    const service = createIdempotencyService({ idempotency });
    await service.withIdempotency(caller, request({ a: 1 }), async () => ({ status: 201, body: null }));
    const reused = await service
      .withIdempotency(caller, request({ a: 2 }), async () => ({ status: 201, body: null }))
      .catch((e: unknown) => e);
    expect(reused).to.be.instanceOf(ProblemError);
    expect((reused as ProblemError).slug).to.equal("idempotency-key-reused");

    const first = [...records.values()][0]!;
    records.set(`org_1\u0000live\u0000key_1\u0000k2`, { ...first, key: "k2", responseStatus: IN_PROGRESS });
    const busy = await service
      .withIdempotency(caller, request({ a: 2 }, "k2"), async () => ({ status: 201, body: null }))
      .catch((e: unknown) => e);
    expect((busy as ProblemError).slug).to.equal("idempotency-key-reused");
  });

  it("a retry takes over a key left in progress (its run died with a server) and runs once; the old run cannot answer", async () => {
    const { idempotency, records } = fakeRepository();
    const service = createIdempotencyService({ idempotency });
    // The first run claimed the key and stopped before its change committed (a crash).
    let resumeFirst!: () => void;
    const paused = new Promise<void>((resolve) => {
      resumeFirst = resolve;
    });
    let claimed!: () => void;
    const running = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const firstRun = service.withIdempotency(caller, request({ a: 1 }), async (remember) => {
      claimed();
      await paused;
      await remember({ idempotency }, { status: 201, body: "first" });
      return { status: 201, body: "first" };
    });
    await running;
    expect([...records.values()][0].responseStatus).to.equal(IN_PROGRESS);
    let runs = 0;
    const retry = await service.withIdempotency(caller, request({ a: 1 }), async (remember) => {
      runs++;
      await remember({ idempotency }, { status: 201, body: "retry" });
      return { status: 201, body: "retry" };
    });
    expect(retry).to.deep.equal({ status: 201, body: "retry" });
    // Were the first run alive after all, its change could not store an answer: it rolls back and
    // answers what the retry committed.
    resumeFirst();
    expect(await firstRun).to.deep.equal({
      status: 201,
      body: "retry",
      headers: { "Idempotent-Replayed": "true" },
    });
    expect(runs).to.equal(1);
  });

  it("keeps a key apart per organization, environment and credential: the same key elsewhere runs its own request", async () => {
    const { idempotency } = fakeRepository();
    const service = createIdempotencyService({ idempotency });
    let runs = 0;
    const run = async (): Promise<StoredResponse> => ({ status: 201, body: ++runs });
    const scopes = [
      caller,
      { ...caller, environment: "sandbox" },
      { ...caller, organizationId: "org_2" },
      { ...caller, id: "key_2" },
    ] as Credential[];
    const answers = [];
    for (const scope of scopes) answers.push(await service.withIdempotency(scope, request({ a: 1 }), run));
    expect(answers.map((a) => a.body)).to.deep.equal([1, 2, 3, 4]);
    expect(answers.every((a) => a.headers === undefined)).to.equal(true);
    const replay = await service.withIdempotency({ ...caller, environment: "sandbox" }, request({ a: 1 }), run);
    expect(replay.body).to.equal(2);
    expect(replay.headers).to.deep.equal({ "Idempotent-Replayed": "true" });
  });

  it("stores the answer in the change's transaction when run remembers it there, and not again after", async () => {
    const { idempotency, records } = fakeRepository();
    const service = createIdempotencyService({ idempotency });
    const inTransaction: { status: number; response: unknown }[] = [];
    const transaction = {
      idempotency: {
        ...idempotency,
        storeResponse: async (_scope: IdempotencyScope, _token: string, status: number, response: unknown) =>
          void inTransaction.push({ status, response }),
      },
    };
    const answer = { status: 201, body: { id: "crs_1" } };
    const result = await service.withIdempotency(caller, request({ a: 1 }), async (remember) => {
      await remember(transaction, answer);
      return answer;
    });
    expect(result).to.deep.equal(answer);
    expect(inTransaction).to.deep.equal([
      { status: 201, response: { status: 201, headers: undefined, bodyText: '{"id":"crs_1"}' } },
    ]);
    // The record outside the transaction was not written a second time: still the claim.
    expect([...records.values()][0].responseStatus).to.equal(IN_PROGRESS);
  });

  it("forgets the key of a request that failed, so a corrected retry runs", async () => {
    const { idempotency, records } = fakeRepository();
    const service = createIdempotencyService({ idempotency });
    const failure = await service
      .withIdempotency(caller, request({ a: 1 }), async () => Promise.reject(new Error("invalid")))
      .catch((e: unknown) => e);
    expect((failure as Error).message).to.equal("invalid");
    expect(records.size).to.equal(0);
    const retried = await service.withIdempotency(caller, request({ a: 1 }), async () => ({ status: 201, body: "ok" }));
    expect(retried).to.deep.equal({ status: 201, body: "ok" });
  });

  it("deletes expired records at most once an hour, older than the retention", async () => {
    const { idempotency, sweeps } = fakeRepository();
    let now = 10 * 3_600_000;
    const service = createIdempotencyService({ idempotency, now: () => now });
    const run = async () => ({ status: 201, body: null });
    await service.withIdempotency(caller, request({}, "a"), run);
    now += 3_599_999;
    await service.withIdempotency(caller, request({}, "b"), run);
    now += 1;
    await service.withIdempotency(caller, request({}, "c"), run);
    expect(sweeps.map((cutoff) => cutoff.getTime())).to.deep.equal([
      10 * 3_600_000 - RETENTION_MS,
      11 * 3_600_000 - RETENTION_MS,
    ]);
  });
});
