// A change's origin travels with its asynchronous work (src/services/change-origin.ts), and the
// storage that carries it is switched off when no change is under way: reads pay no hook per promise.
import { expect } from "chai";
import type { Credential } from "../../src/auth/credential.ts";
import { type ChangeOrigin, currentOrigin, runAsChange } from "../../src/services/change-origin.ts";

const actor = { kind: "api_key", id: "key_1" } as Credential;
const origin = (operationId: string): ChangeOrigin => ({ actor, operationId, requestId: null, clientRequestId: null });
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("change origin", () => {
  it("is each change's own across awaits, while others start and end around it, and gone after it", async () => {
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const seen: string[] = [];
    const first = runAsChange(origin("first"), async () => {
      await firstHeld;
      await turn();
      seen.push(currentOrigin()?.operationId ?? "none");
    });
    await runAsChange(origin("second"), async () => {
      await turn();
      seen.push(currentOrigin()?.operationId ?? "none");
    });
    // The second change has ended; the first is still under way and keeps its origin.
    releaseFirst();
    await first;
    expect(seen).to.deep.equal(["second", "first"]);
    expect(currentOrigin()).to.equal(undefined);
    await turn();
    expect(currentOrigin()).to.equal(undefined);
  });

  it("is carried again by a change that starts after the storage was switched off", async () => {
    await runAsChange(origin("before"), async () => {});
    const { result } = await runAsChange(origin("after"), async () => {
      await turn();
      return currentOrigin()?.operationId;
    });
    expect(result).to.equal("after");
  });

  it("ends with its change when the work fails", async () => {
    const failed = await runAsChange(origin("failing"), async () => {
      await turn();
      throw new Error("refused");
    }).catch((error: Error) => error.message);
    expect(failed).to.equal("refused");
    expect(currentOrigin()).to.equal(undefined);
  });
});
