// /healthz as deploys and the HEALTHCHECK use it, and what the production
// server writes to its log: one line per request, one JSON line per contact
// outcome, never a message body, an address or a key.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { startAppServer, type AppServer } from "../support/app-server";
import { until } from "../support/until";
import { BROWSER_HEADERS, VALID, relayEnv, postForm } from "../support/contact";

const PRIVATE_KEY = "private_test_SECRET_000";
const secrets = () =>
  Object.entries(relayEnv(""))
    .filter(([name, value]) => name.startsWith("EMAILJS_") && value)
    .map(([, value]) => value)
    .concat(PRIVATE_KEY);

let fake: EmailJsFake;
let relay: AppServer;
const outboxDir = mkdtempSync(join(tmpdir(), "portfolio-health-relay-"));
beforeAll(async () => {
  fake = await startEmailJsFake();
  relay = await startAppServer({
    env: {
      ...relayEnv(fake.url, { OUTBOX_DIR: outboxDir }),
      EMAILJS_PRIVATE_KEY: PRIVATE_KEY,
      CONTACT_RATE_LIMIT_MAX: "1000",
    },
  });
}, 60_000);
afterAll(async () => {
  await relay?.stop();
  await fake?.close();
  rmSync(outboxDir, { recursive: true, force: true });
});

const post = (values: Record<string, string>) =>
  postForm(`${relay.url}/_root.data?index`, values).then((response) => response.text());

const health = async (url = relay.url): Promise<unknown> => (await fetch(`${url}/healthz`)).json();
beforeEach(() => fake.reset());

describe("/healthz", () => {
  it("answers 200 with the status and the mail mode, uncached, naming no key", async () => {
    const response = await fetch(`${relay.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ status: "ok", mail: "relay", store: "ok", rateLimit: "memory" });
    for (const secret of secrets()) expect(text).not.toContain(secret);
  });

  it("never calls the provider, and answers while the provider hangs", async () => {
    fake.setMode({ kind: "hang" });
    for (let i = 0; i < 3; i++) expect((await fetch(`${relay.url}/healthz`)).status).toBe(200);
    expect(fake.requests).toHaveLength(0);
  });

  // A public count of waiting messages told an attacker the provider was down.
  it("does not tell anyone that messages are waiting", async () => {
    fake.setMode({ kind: "status", status: 500 });
    await post({ ...VALID, subject: "health-count" });
    await post({ ...VALID, subject: "health-count 2" });
    expect(await health()).toEqual({ status: "ok", mail: "relay", store: "ok", rateLimit: "memory" });
  });
});

/** Where Redis was, a listener that counts the connections it is offered. */
async function listening() {
  let tries = 0;
  const server = createServer((socket) => {
    tries++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { port, tries: () => tries, close: () => new Promise((resolve) => server.close(resolve)) };
}

// Redis was retired: one server in outbox mode, with the REDIS_URL an older deploy may still set.
describe("without EmailJS ids, with a left-over REDIS_URL", () => {
  let oldRedis: Awaited<ReturnType<typeof listening>>;
  let app: AppServer;
  const outbox = mkdtempSync(join(tmpdir(), "portfolio-health-outbox-"));
  beforeAll(async () => {
    oldRedis = await listening();
    app = await startAppServer({
      env: { OUTBOX_DIR: outbox, REDIS_URL: `redis://:redis_SECRET_pw@127.0.0.1:${oldRedis.port}` },
    });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await oldRedis?.close();
    rmSync(outbox, { recursive: true, force: true });
  });

  it("names the outbox mode and the limit in memory, nothing of Redis", async () => {
    expect(await health(app.url)).toEqual({ status: "ok", mail: "outbox", store: "ok", rateLimit: "memory" });
  });

  it("says once that REDIS_URL is no longer read, never with its password, and never connects to it", async () => {
    expect((await postForm(`${app.url}/?index`, VALID)).status).toBe(303);
    const body = await (await fetch(`${app.url}/healthz`)).text();
    expect(app.output().match(/\[contact\] REDIS_URL is no longer read/g)).toHaveLength(1);
    expect(app.output() + body).not.toContain("redis_SECRET_pw");
    expect(oldRedis.tries()).toBe(0);
  });
});

describe("logs", () => {
  /** Waits for the server's log to grow past `from` with `count` lines matching. */
  async function linesAfter(from: number, match: RegExp, count: number): Promise<string[]> {
    const lines = () =>
      relay
        .output()
        .slice(from)
        .split("\n")
        .filter((line) => match.test(line));
    await until(() => lines().length >= count, `${count} log lines matching ${match}`);
    return lines();
  }

  it("has one line per request", async () => {
    const from = relay.output().length;
    const paths = ["/healthz", "/", "/no-such-page", "/_root.data"];
    for (const path of paths) await (await fetch(`${relay.url}${path}`, { headers: BROWSER_HEADERS })).text();
    const lines = await linesAfter(from, /^(GET|POST) \//, paths.length);
    expect(lines.map((line) => line.split(" ").slice(0, 3).join(" "))).toEqual([
      "GET /healthz 200",
      "GET / 200",
      "GET /no-such-page 404",
      "GET /_root.data 200",
    ]);
  });

  it("has one JSON line per contact outcome, without bodies, addresses or keys", async () => {
    const from = relay.output().length;
    await post(VALID);
    await post({ ...VALID, email: "someone-else@example.org", message: "" });
    const lines = await linesAfter(from, /"event":"contact"/, 3);
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual([
      expect.objectContaining({ outcome: "accepted", transport: "relay" }),
      expect.objectContaining({
        outcome: "relayed",
        ok: true,
        upstreamStatus: 200,
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({ outcome: "refused", status: 400, reason: "invalid_fields" }),
    ]);
    const logged = lines.join("\n");
    for (const value of [...Object.values(VALID), "someone-else@example.org", ...secrets()]) {
      expect(logged).not.toContain(value);
    }
    expect(logged).not.toMatch(/@/);
  });
});
