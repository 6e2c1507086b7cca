// The contact limit with DATABASE_URL, on the wire: two production instances on one PostgreSQL database (each
// with a folder of its own) count one limit in rate-limiter-flexible's table, so the second answers 429 once the
// first used it. With the database stopped each instance counts in its own memory, never a 500; started again,
// the count kept in the table is in force, and shared again.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm } from "../support/contact";
import { freshDatabase, startPostgresServer, type PostgresServer } from "../support/postgres-server";

const LIMIT = 3;

let postgres: PostgresServer;
let a: AppServer;
let b: AppServer;
const outboxes: string[] = [];

beforeAll(async () => {
  // A server of this file's own: it is stopped and started.
  postgres = await startPostgresServer();
  const database = await freshDatabase(postgres.url);
  outboxes.push(...(await Promise.all([0, 1].map(() => mkdtemp(path.join(tmpdir(), "rate-limit-pg-"))))));
  // No EmailJS ids: each accepted post is a file in this instance's folder.
  const instance = (outbox: string) =>
    startAppServer({
      env: {
        DATABASE_URL: database,
        OUTBOX_DIR: outbox,
        TRUST_PROXY: "1",
        CONTACT_RATE_LIMIT_MAX: String(LIMIT),
      },
    });
  [a, b] = await Promise.all([instance(outboxes[0]!), instance(outboxes[1]!)]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await postgres?.remove();
  await Promise.all(outboxes.map((outbox) => rm(outbox, { recursive: true, force: true })));
});

let posts = 0;
/** A no-JS post from `client` (as the trusted proxy names it) to `app`: its status and Retry-After. */
async function post(app: AppServer, client: string) {
  const subject = `Limited ${++posts}`;
  const response = await postForm(
    `${app.url}/?index`,
    { ...VALID, subject, message: `${VALID.message} ${subject}` },
    { ...BROWSER_HEADERS, "X-Forwarded-For": client },
  );
  const page = await response.text();
  return { status: response.status, retryAfter: response.headers.get("retry-after"), page };
}
const statuses = async (app: AppServer, client: string, count: number) => {
  const answered: number[] = [];
  for (let i = 0; i < count; i++) answered.push((await post(app, client)).status);
  return answered;
};
const files = async (outbox: string) => (await readdir(outbox)).filter((file) => file.endsWith(".json"));
const health = async (app: AppServer) => (await fetch(`${app.url}/healthz`)).json();
const noServerError = (app: AppServer) =>
  expect(app.output()).not.toMatch(/"status":500|Unhandled|uncaught/i);

// In order: the counts carry from one test to the next.
describe("two instances on one PostgreSQL database", { timeout: 60_000 }, () => {
  it("share one contact limit: after three posts to the first, the second answers 429, and the first too", async () => {
    for (const app of [a, b]) {
      expect(await health(app)).toEqual({ status: "ok", mail: "outbox", store: "ok", rateLimit: "postgres" });
    }
    expect(await statuses(a, "198.51.100.1", LIMIT)).toEqual([303, 303, 303]);
    const refused = await post(b, "198.51.100.1");
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect((await post(a, "198.51.100.1")).status).toBe(429);
    // Another client has its own count, on either instance.
    expect((await post(b, "198.51.100.2")).status).toBe(303);
    // Each kept what it accepted in its own folder: the count is all they share.
    expect([(await files(outboxes[0]!)).length, (await files(outboxes[1]!)).length]).toEqual([3, 1]);
  });

  it("with the database stopped: each counts in its own memory, refuses past the limit with 429, never a 500", async () => {
    await postgres.stop();
    // The store is away too: a post the limit lets through is refused with its text given back (503).
    const first = await post(a, "198.51.100.3");
    expect(first.status).toBe(503);
    expect(first.page).toContain("It could not be kept to send later: please write to me at");
    expect(first.page).toContain(`Limited ${posts}`);
    expect(await statuses(a, "198.51.100.3", LIMIT)).toEqual([503, 503, 429]);
    // The other instance's memory is its own: it has not counted this client.
    expect((await post(b, "198.51.100.3")).status).toBe(503);
    for (const app of [a, b]) {
      expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
      noServerError(app);
    }
  });

  // In outbox mode too the background tries a write once a second while the store refuses (docs/deploy.md).
  it("started again: each says within seconds that the store takes writes, before anyone posts", async () => {
    await postgres.start();
    for (const app of [a, b]) {
      await expect
        .poll(() => health(app), { timeout: 5_000 })
        .toEqual({ status: "ok", mail: "outbox", store: "ok", rateLimit: "postgres" });
    }
  });

  it("started again: the count kept in the table is in force on both, and a new client's is shared again", async () => {
    // The three posts counted before the outage are still counted.
    expect((await post(b, "198.51.100.1")).status).toBe(429);
    expect((await post(a, "198.51.100.1")).status).toBe(429);
    expect(await statuses(b, "198.51.100.4", LIMIT)).toEqual([303, 303, 303]);
    expect((await post(a, "198.51.100.4")).status).toBe(429);
    // What b kept wrote to the store: it takes writes again.
    expect(await health(b)).toEqual({ status: "ok", mail: "outbox", store: "ok", rateLimit: "postgres" });
    expect([(await files(outboxes[0]!)).length, (await files(outboxes[1]!)).length]).toEqual([3, 4]);
    for (const app of [a, b]) noServerError(app);
  });
});
