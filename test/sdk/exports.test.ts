// exportData in the SDK (exports.download): the export's text as the server sends it,
// and a failure as the typed ApiError like every other method.
import { expect } from "chai";
import { createClient, PermissionError } from "../../sdk/src/index.ts";
import { fakeClock, fakeServer, problem } from "./fakes.ts";

const BASE_URL = "https://api.example.test/api/v1";
const CSV = "id,name\ninst_110635,UC Berkeley\n";

function setup(answers: Response[]) {
  const server = fakeServer(answers);
  const client = createClient({
    baseUrl: BASE_URL,
    apiKey: "svc_live_test",
    fetch: server.fetch,
    clock: fakeClock(),
    maxRetries: 0,
  });
  return { server, client };
}

describe("SDK exportData: exports.download", () => {
  it("exportData returns the body text and sends resource and format as the query", async () => {
    const { server, client } = setup([new Response(CSV, { status: 200, headers: { "Content-Type": "text/csv" } })]);
    expect(await client.exports.download({ resource: "institutions", format: "csv" })).to.equal(CSV);
    expect(server.requests[0].url.href).to.equal(`${BASE_URL}/exports?resource=institutions&format=csv`);
  });

  it("exportData throws the typed error of a problem answer", async () => {
    const { client } = setup([problem(403, "forbidden")]);
    const error = await client.exports.download().then(
      () => expect.fail("expected a rejection"),
      (failure: unknown) => failure,
    );
    expect(error).to.be.instanceOf(PermissionError).and.include({ status: 403, code: "forbidden" });
  });
});
