// Who one client is, on the wire (decision 034): TRUST_PROXY as a hop count believes that many
// X-Forwarded-For entries from whoever connects; as the proxies' own addresses it believes them only
// from those addresses; unset, a client is the address that connects. Five posts make a client's limit.
import { afterEach, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, formBody } from "../support/contact";
import { raw } from "../support/raw-http";

let app: AppServer | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

async function serve(trustProxy: string) {
  app = await startAppServer({ env: { TRUST_PROXY: trustProxy, CONTACT_RATE_LIMIT_MAX: "5" } });
  return app;
}

/** Statuses of posts, each from `from` (the connecting address) with its X-Forwarded-For. */
async function posts(server: AppServer, sends: { forwarded?: string; from?: string }[]) {
  const statuses: number[] = [];
  for (const [i, { forwarded, from }] of sends.entries()) {
    const answer = await raw(`${server.url}/?index`, {
      method: "POST",
      headers: {
        ...BROWSER_HEADERS,
        "Content-Type": "application/x-www-form-urlencoded",
        ...(forwarded ? { "X-Forwarded-For": forwarded } : {}),
      },
      body: formBody({ ...VALID, subject: `Post ${i}`, message: `${VALID.message} ${i}` }).toString(),
      localAddress: from,
    });
    statuses.push(answer.status);
  }
  return statuses;
}

const times = <T>(n: number, make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));

describe("TRUST_PROXY", { timeout: 30_000 }, () => {
  it("1: the address our proxy appended is the client; what the visitor wrote to its left is not", async () => {
    const server = await serve("1");
    const spoofed = times(6, (i) => ({ forwarded: `${i}.${i}.${i}.${i}, 203.0.113.7` }));
    expect(await posts(server, spoofed)).toEqual([303, 303, 303, 303, 303, 429]);
    expect(await posts(server, [{ forwarded: "198.51.100.9" }])).toEqual([303]);
  });

  it("2: the second address from the right", async () => {
    const server = await serve("2");
    const via = times(6, (i) => ({ forwarded: `9.9.9.${i}, 203.0.113.7, 10.0.0.${i}` }));
    expect(await posts(server, via)).toEqual([303, 303, 303, 303, 303, 429]);
  });

  it("the proxies' addresses: X-Forwarded-For from anyone else is not believed", async () => {
    // The server is reached from 127.0.0.1, which is not 10.0.0.0/8: 20 headers are one client.
    const server = await serve("10.0.0.0/8");
    const direct = times(20, (i) => ({ forwarded: `198.51.100.${i + 1}` }));
    const statuses = await posts(server, direct);
    expect(statuses.filter((status) => status === 303)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
  });

  it("the proxies' addresses: from a trusted one, each forwarded client counts on its own", async () => {
    const server = await serve("loopback");
    const forwarded = times(20, (i) => ({ forwarded: `198.51.100.${i + 1}` }));
    expect(await posts(server, forwarded)).toEqual(times(20, () => 303));
  });

  it("unset: the address that connects, whatever the header says", async () => {
    const server = await serve("");
    const one = times(6, (i) => ({ forwarded: `198.51.100.${i + 1}`, from: "127.0.0.2" }));
    expect(await posts(server, one)).toEqual([303, 303, 303, 303, 303, 429]);
    expect(await posts(server, [{ from: "127.0.0.3" }])).toEqual([303]);
  });
});
