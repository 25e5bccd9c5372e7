// Which addresses a webhook may reach outside development: the classification
// (IPv6 transition forms, this host's own interfaces, read at check time) and
// the same rule applied at connect time by the sender.
import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import {
  assertSafeTarget,
  hostInterfaceAddresses,
  isPrivateAddress,
  targetRefusal,
} from "../../src/webhooks/target-safety.ts";
import { sendDelivery, type LookupAll, type SendRequest } from "../../src/webhooks/sender.ts";

const PUBLIC_V4 = "93.184.216.34";
const PUBLIC_V6 = "2606:2800:220:1:248:1893:25c8:1946";
const none = () => [];

/** Every address of this machine's interfaces, as os.networkInterfaces() reports them now. */
function realInterfaceAddresses(): { address: string; family: string; internal: boolean }[] {
  return Object.values(os.networkInterfaces()).flatMap((entries) => entries ?? []);
}

describe("webhook targets: IPv6 forms that carry an IPv4 address", () => {
  const carrying = {
    "IPv4-compatible ::a.b.c.d": ["::127.0.0.1", "::7f00:1", "::10.0.0.1", "::169.254.169.254"],
    "IPv4-mapped ::ffff:a.b.c.d": ["::ffff:127.0.0.1", "::ffff:a00:1", "::ffff:192.168.1.1"],
    "IPv4-translated ::ffff:0:a.b.c.d": ["::ffff:0:127.0.0.1", "::ffff:0:a9fe:a9fe"],
    "NAT64 64:ff9b::/96": ["64:ff9b::127.0.0.1", "64:ff9b::a00:5", "64:ff9b::169.254.169.254"],
    "6to4 2002::/16": ["2002:7f00:1::", "2002:c0a8:101::1", "2002:a9fe:a9fe:1::5"],
  };

  for (const [form, addresses] of Object.entries(carrying)) {
    it(`refuses the ${form} form of a loopback, private or metadata address`, () => {
      for (const address of addresses) {
        expect(targetRefusal(address, none), address).to.match(/loopback, private, link-local or metadata address$/);
      }
    });
  }

  it("names the IPv4 address such a form carries", () => {
    expect(targetRefusal("64:ff9b::a00:5", none)).to.equal(
      "an IPv6 form of 10.0.0.5, a loopback, private, link-local or metadata address",
    );
    expect(targetRefusal("2002:c0a8:101::1", none)).to.equal(
      "an IPv6 form of 192.168.1.1, a loopback, private, link-local or metadata address",
    );
  });

  it("refuses local-use NAT64 (64:ff9b:1::/48) whatever it carries", () => {
    expect(isPrivateAddress("64:ff9b:1::5db8:d822", none)).to.equal(true);
  });

  it("accepts the same forms of a public IPv4 address, and public addresses", () => {
    for (const address of [
      PUBLIC_V4,
      PUBLIC_V6,
      "::ffff:93.184.216.34",
      "64:ff9b::93.184.216.34",
      "2002:5db8:d822::1",
      "8.8.8.8",
    ]) {
      expect(targetRefusal(address, none), address).to.equal(null);
    }
  });
});

describe("webhook targets: this host's own interface addresses", () => {
  it("refuses every address of the injected interface list, and IPv6 forms of its IPv4 ones", () => {
    const own = () => [PUBLIC_V4, PUBLIC_V6];
    for (const address of [
      PUBLIC_V4,
      PUBLIC_V6,
      "2606:2800:220:1:248:1893:25C8:1946",
      "::ffff:93.184.216.34",
      "64:ff9b::5db8:d822",
      "2002:5db8:d822::",
    ]) {
      expect(targetRefusal(address, own), address).to.match(/an address of this server's own network interfaces$/);
    }
    expect(targetRefusal("93.184.216.35", own)).to.equal(null);
  });

  it("reads the interface list at every check, not once", () => {
    const own: string[] = [];
    let reads = 0;
    const interfaces = () => {
      reads += 1;
      return own;
    };
    expect(isPrivateAddress(PUBLIC_V4, interfaces)).to.equal(false);
    own.push(PUBLIC_V4);
    expect(isPrivateAddress(PUBLIC_V4, interfaces)).to.equal(true);
    expect(reads).to.equal(2);
  });

  it("refuses every address os.networkInterfaces() reports on this machine, by default", () => {
    const addresses = realInterfaceAddresses();
    expect(addresses.map((entry) => entry.address)).to.include("127.0.0.1");
    expect(hostInterfaceAddresses()).to.have.members(addresses.map((entry) => entry.address));
    for (const { address, family } of addresses) {
      expect(isPrivateAddress(address), address).to.equal(true);
      if (family === "IPv4") expect(isPrivateAddress(`::ffff:${address}`), `::ffff:${address}`).to.equal(true);
    }
  });

  it("assertSafeTarget refuses a host that resolves to an own address or to a transition form", async () => {
    const resolveTo = (addresses: string[]) => async () => addresses;
    const refusal = (url: string, addresses: string[]) =>
      assertSafeTarget(url, false, resolveTo(addresses), () => [PUBLIC_V4]).then(
        () => expect.fail(`${url} -> ${addresses.join(", ")} was accepted`),
        (error: Error) => error.message,
      );
    expect(await refusal("https://hooks.example.org/", [PUBLIC_V6, PUBLIC_V4])).to.equal(
      `resolves to ${PUBLIC_V4}, an address of this server's own network interfaces`,
    );
    expect(await refusal("https://hooks.example.org/", ["64:ff9b::7f00:1"])).to.equal(
      "resolves to 64:ff9b::7f00:1, an IPv6 form of 127.0.0.1, a loopback, private, link-local or metadata address",
    );
    expect(await refusal("http://[::ffff:7f00:1]/", [])).to.contain("::ffff:7f00:1");
    expect(await refusal("https://nowhere.example.org/", [])).to.equal("resolves to no address");
    const accepted = await assertSafeTarget("https://hooks.example.org/", false, resolveTo([PUBLIC_V6]), () => [
      PUBLIC_V4,
    ]);
    expect(accepted.hostname).to.equal("hooks.example.org");
  });
});

describe("webhook targets: checked again at connect time", () => {
  let server: http.Server;
  let port: number;
  let received = 0;

  before(async () => {
    // Listens on every interface, so that a refused delivery is refused by the rule, not by the network.
    server = http.createServer((_request, response) => {
      received += 1;
      response.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const lookupTo =
    (address: string): LookupAll =>
    (_hostname, _options, callback) =>
      callback(null, [{ address, family: address.includes(":") ? 6 : 4 }]);
  const send = (url: string, extra: Partial<SendRequest> = {}) =>
    sendDelivery({ url, body: "{}", headers: {}, timeoutMs: 2000, allowPrivateTargets: false, ...extra });

  it("delivers to this machine's addresses when private targets are allowed (the control)", async () => {
    const result = await send(`http://127.0.0.1:${port}/`, { allowPrivateTargets: true });
    expect(result).to.include({ ok: true, responseStatus: 200 });
    expect(received).to.equal(1);
  });

  it("refuses a host name that resolves to a transition form of loopback, or to an own address", async () => {
    const before = received;
    const viaMapped = await send(`http://hooks.example.test:${port}/`, { lookup: lookupTo("::ffff:127.0.0.1") });
    expect(viaMapped.error).to.equal(
      "refused: hooks.example.test resolves to ::ffff:127.0.0.1, a loopback, private, link-local or metadata address",
    );
    const viaNat64 = await send(`http://hooks.example.test:${port}/`, { lookup: lookupTo("64:ff9b::7f00:1") });
    expect(viaNat64.error).to.contain("an IPv6 form of 127.0.0.1");
    const viaOwn = await send(`http://hooks.example.test:${port}/`, {
      lookup: lookupTo(PUBLIC_V4),
      interfaceAddresses: () => [PUBLIC_V4],
    });
    expect(viaOwn.error).to.equal(
      `refused: hooks.example.test resolves to ${PUBLIC_V4}, an address of this server's own network interfaces`,
    );
    for (const result of [viaMapped, viaNat64, viaOwn]) expect(result).to.include({ ok: false, responseStatus: null });
    expect(received).to.equal(before);
  });

  it("refuses every address of this machine's interfaces written as the URL's host", async () => {
    const addresses = realInterfaceAddresses().filter((entry) => !entry.address.startsWith("fe80:"));
    const reachable = addresses.find((entry) => entry.family === "IPv4" && !entry.internal)?.address ?? "127.0.0.1";
    expect(await send(`http://${reachable}:${port}/`, { allowPrivateTargets: true })).to.include({ ok: true });
    const before = received;
    for (const { address, family } of addresses) {
      const host = family === "IPv6" ? `[${address}]` : address;
      const result = await send(`http://${host}:${port}/`);
      expect(result.error, address).to.match(/^refused: /);
    }
    const mapped = await send(`http://[::ffff:127.0.0.1]:${port}/`);
    expect(mapped.error).to.equal("refused: ::ffff:7f00:1 is a loopback, private, link-local or metadata address");
    expect(received).to.equal(before);
  });

  it('allows loopback, and only loopback, when the allowance is "loopback" (a server listening on loopback)', async () => {
    const before = received;
    const loopback = { allowPrivateTargets: "loopback" as const };
    expect(await send(`http://127.0.0.1:${port}/`, loopback)).to.include({ ok: true });
    expect(await send(`http://hooks.example.test:${port}/`, { ...loopback, lookup: lookupTo("127.0.0.1") })).to.include(
      { ok: true },
    );
    expect(received).to.equal(before + 2);
    const external = realInterfaceAddresses().find((entry) => entry.family === "IPv4" && !entry.internal)?.address;
    const refused = [
      await send(`http://hooks.example.test:${port}/`, { ...loopback, lookup: lookupTo("10.0.0.5") }),
      await send(`http://hooks.example.test:${port}/`, { ...loopback, lookup: lookupTo("64:ff9b::7f00:1") }),
      await send(`http://169.254.169.254:${port}/`, loopback),
      ...(external ? [await send(`http://${external}:${port}/`, loopback)] : []),
    ];
    for (const result of refused) expect(result.error).to.match(/^refused: /);
    expect(received).to.equal(before + 2);
  });
});
