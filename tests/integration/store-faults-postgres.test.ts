// Where the store on PostgreSQL fails, on the production server (DATABASE_URL, an OUTBOX_DIR of its own): another
// session's lock on its tables, and its server stopped while a send is in flight or while visitors post.
// Nothing is mailed twice or lost, and a visitor hears the spec's failure text with a 503, never a 500.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { freshDatabase, startPostgresServer, type PostgresServer } from "../support/postgres-server";

let fake: EmailJsFake;
beforeAll(async () => {
  fake = await startEmailJsFake();
});
afterAll(() => fake?.close());

let servers: AppServer[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  servers = [];
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  fake.reset();
});

/** An instance of the production server on `database`, with an OUTBOX_DIR of its own that no other shares. */
async function start(database: string, extra: Record<string, string> = {}) {
  const outbox = await mkdtemp(path.join(tmpdir(), "store-faults-pg-"));
  cleanups.push(() => rm(outbox, { recursive: true, force: true }));
  const server = await startAppServer({
    env: relayEnv(fake.url, {
      OUTBOX_DIR: outbox,
      DATABASE_URL: database,
      TRUST_PROXY: "1",
      CONTACT_REDELIVER_FIRST_SECONDS: "1",
      CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
      CONTACT_REDELIVER_MAX_SECONDS: "1",
      ...extra,
    }),
  });
  servers.push(server);
  return server;
}

/** A PostgreSQL server of this test's own, which it may stop and start. */
async function ownPostgres(): Promise<PostgresServer> {
  const server = await startPostgresServer();
  cleanups.push(() => server.remove());
  return server;
}

/** Another process's session on the database, as psql would hold one. */
async function session(database: string) {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  cleanups.push(() => client.end().catch(() => undefined));
  return client;
}

/** The subjects of every kept message, read from the database by a session of the test's own. */
async function keptSubjects(database: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows } = await client.query<{ body: string }>("SELECT body FROM messages ORDER BY received");
    return rows.map((row) => (JSON.parse(row.body) as { params: { subject: string } }).params.subject);
  } finally {
    await client.end();
  }
}

async function post(server: AppServer, subject: string, client = "203.0.113.30") {
  return postForm(
    `${server.url}/?index`,
    { ...VALID, subject, message: `${VALID.message} ${subject}` },
    { ...BROWSER_HEADERS, "X-Forwarded-For": client },
  );
}
const arrivals = (subject: string) => fake.requests.filter((r) => r.rawBody.includes(`"${subject}"`));
const mailed = (subject: string) => arrivals(subject).filter((request) => request.status === 200).length;
const lines = (server: AppServer, outcome: string) =>
  server.output().split(`"outcome":"${outcome}"`).length - 1;
const health = async (server: AppServer) =>
  ((await (await fetch(`${server.url}/healthz`)).json()) as { store: string }).store;

describe("another session holds the store's tables", { timeout: 90_000 }, () => {
  it("while a send is in flight: pages and /healthz answer under the lock, and after it the mail is not sent again and leaves the store", async () => {
    const database = await freshDatabase();
    const server = await start(database);
    const locker = await session(database);
    fake.setMode({ kind: "status", status: 200, body: "OK", delayMs: 2_000 });
    const subject = "Sent under a PostgreSQL lock";
    const posted = post(server, subject);
    await expect.poll(() => arrivals(subject).length, { timeout: 10_000, interval: 20 }).toBe(1);
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE messages, records IN ACCESS EXCLUSIVE MODE");
    // Taken before EmailJS answered: what follows the 200 meets the lock.
    expect(arrivals(subject)[0]!.status).toBeUndefined();

    // Past the store's 5 s lock timeout it refuses, said once; the server itself is not held meanwhile.
    await expect.poll(() => lines(server, "store_refusing"), { timeout: 20_000, interval: 50 }).toBe(1);
    expect((await fetch(`${server.url}/`)).status).toBe(200);
    expect(await health(server)).toBe("refusing_writes");
    expect(await posted.then((response) => response.status)).toBe(303);
    // A visitor posting under the lock is told it could not be kept, the text given back: nothing is lost.
    const refused = await post(server, "Posted under a PostgreSQL lock", "203.0.113.31");
    expect(refused.status).toBe(503);
    const page = await refused.text();
    expect(page).toContain("It could not be kept to send later: please write to me at");
    expect(page).toContain("Posted under a PostgreSQL lock");
    // All of that while the lock was still held.
    const held = await locker.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM pg_locks WHERE pid = pg_backend_pid() AND mode = 'AccessExclusiveLock'
       AND relation IN ('messages'::regclass, 'records'::regclass)`,
    );
    expect(Number(held.rows[0]!.n)).toBe(2);
    expect(mailed(subject)).toBe(1);

    await locker.query("COMMIT");
    // Removed once the lock is free, long before its claim could end: it is never sent a second time.
    await expect.poll(() => keptSubjects(database), { timeout: 15_000, interval: 100 }).toEqual([]);
    await expect.poll(() => health(server), { timeout: 10_000, interval: 100 }).toBe("ok");
    expect(arrivals(subject)).toHaveLength(1);
    expect(arrivals("Posted under a PostgreSQL lock")).toHaveLength(0);
    expect(
      ["store_refusing", "store_ok", "redelivery_error"].map((outcome) => lines(server, outcome)),
    ).toEqual([1, 1, 0]);
  });
});

describe("the PostgreSQL server stops", { timeout: 120_000 }, () => {
  it("while a send is in flight: once it is back the message leaves the store, mailed exactly once", async () => {
    const postgres = await ownPostgres();
    const database = await freshDatabase(postgres.url);
    const server = await start(database);
    fake.setMode({ kind: "status", status: 200, body: "OK", delayMs: 2_500 });
    const subject = "Sent across a PostgreSQL restart";
    const posted = post(server, subject);
    await expect.poll(() => arrivals(subject).length, { timeout: 10_000, interval: 20 }).toBe(1);
    await postgres.stop();
    // Stopped before EmailJS answered: the removal after the 200 finds no database.
    expect(arrivals(subject)[0]!.status).toBeUndefined();
    expect((await posted).status).toBe(303);
    await expect.poll(() => lines(server, "store_refusing"), { timeout: 20_000, interval: 50 }).toBe(1);
    expect(await health(server)).toBe("refusing_writes");
    expect((await fetch(`${server.url}/`)).status).toBe(200);

    await postgres.start();
    await expect.poll(() => keptSubjects(database), { timeout: 20_000, interval: 100 }).toEqual([]);
    await expect.poll(() => health(server), { timeout: 10_000, interval: 100 }).toBe("ok");
    expect(arrivals(subject)).toHaveLength(1);
    expect(mailed(subject)).toBe(1);
    expect(
      ["store_refusing", "store_ok", "redelivery_error"].map((outcome) => lines(server, outcome)),
    ).toEqual([1, 1, 0]);
  });

  it("while visitors post: each hears the failure text with a 503, fields kept, never a 500; SIGTERM then exits 0", async () => {
    const postgres = await ownPostgres();
    const database = await freshDatabase(postgres.url);
    const server = await start(database);
    await postgres.stop();
    const subjects = ["Posted while it is down 1", "Posted while it is down 2", "Posted while it is down 3"];
    for (const [i, subject] of subjects.entries()) {
      const response = await post(server, subject, `203.0.113.${60 + i}`);
      const page = await response.text();
      expect(response.status, subject).toBe(503);
      expect(page).toContain("It could not be kept to send later: please write to me at");
      expect(page).toContain(subject);
      expect(page).toContain(`${VALID.message.split("\n")[1]!} ${subject}`);
    }
    expect(fake.requests).toHaveLength(0);
    expect(await health(server)).toBe("refusing_writes");
    expect((await fetch(`${server.url}/`)).status).toBe(200);
    expect(server.output()).not.toMatch(/"status":500|Unhandled|uncaught/i);

    expect(await server.stop()).toBe(0);
    servers = [];
  });
});
