// Where the store on PostgreSQL fails, on the production server (DATABASE_URL, an OUTBOX_DIR of its own): a psql
// session's lock on its tables, its server stopped while a send is in flight, while visitors post or before the
// site starts, and a sender killed mid-send. Nothing is mailed twice or lost, and a visitor hears the spec's
// failure text with a 503, never a 500.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { answering, ROOT, startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake, type FakeMode } from "../support/emailjs-fake";
import { freePort } from "../support/free-port";
import { runOutboxCli } from "../support/outbox-cli";
import {
  freshDatabase,
  startPostgresServer,
  type PostgresServer,
  queryDatabase as query,
} from "../support/postgres-server";

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

/** An OUTBOX_DIR of the test's own that no other shares: with DATABASE_URL nothing of the store is in it. */
async function outboxDir() {
  const outbox = await mkdtemp(path.join(tmpdir(), "store-faults-pg-"));
  cleanups.push(() => rm(outbox, { recursive: true, force: true }));
  return outbox;
}

/** What the server and the owner's CLI are given: relay mode on `database`, short backoffs. */
const envFor = (database: string, outbox: string, extra: Record<string, string> = {}) =>
  relayEnv(fake.url, {
    OUTBOX_DIR: outbox,
    DATABASE_URL: database,
    TRUST_PROXY: "1",
    CONTACT_REDELIVER_FIRST_SECONDS: "1",
    CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
    CONTACT_REDELIVER_MAX_SECONDS: "1",
    ...extra,
  });

/** An instance of the production server on `database`; `extra` may send its mail elsewhere (EMAILJS_API_URL). */
async function start(database: string, extra: Record<string, string> = {}) {
  const server = await startAppServer({ env: envFor(database, await outboxDir(), extra) });
  servers.push(server);
  return server;
}

/** A PostgreSQL server of this test's own, which it may stop and start. */
async function ownPostgres(): Promise<PostgresServer> {
  const server = await startPostgresServer();
  cleanups.push(() => server.remove());
  return server;
}

/** The subjects of every kept message, read from the database by a session of the test's own. */
const keptSubjects = async (database: string) =>
  (await query<{ body: string }>(database, "SELECT body FROM messages ORDER BY received")).map(
    (row) => (JSON.parse(row.body) as { params: { subject: string } }).params.subject,
  );

async function post(server: AppServer, subject: string, client = "203.0.113.30") {
  return postForm(
    `${server.url}/?index`,
    { ...VALID, subject, message: `${VALID.message} ${subject}` },
    { ...BROWSER_HEADERS, "X-Forwarded-For": client },
  );
}
const has = (body: string, subject: string) => body.includes(`"${subject}"`);
const arrivals = (subject: string) => fake.requests.filter((r) => has(r.rawBody, subject));
const mailed = (subject: string) => arrivals(subject).filter((request) => request.status === 200).length;
const lines = (server: AppServer, outcome: string) =>
  server.output().split(`"outcome":"${outcome}"`).length - 1;
const health = async (server: AppServer) =>
  ((await (await fetch(`${server.url}/healthz`)).json()) as { store: string }).store;
/** What the store said of its health, in order. */
const healthLines = (server: AppServer) =>
  [...server.output().matchAll(/"outcome":"(store_refusing|store_ok)"/g)].map(([, outcome]) => outcome);

/**
 * EmailJS as the fake answers, behind a door that holds every request until `open()`: the server hears the
 * fake's answer only after whatever the test did meanwhile. Once open it stays open, so a second send goes
 * through and is seen by the fake.
 */
async function door() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const held: string[] = [];
  let givenUp = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    held.push(body);
    let gone = false;
    res.once("close", () => (gone = !res.writableFinished));
    await opened;
    // The server stopped waiting before the door opened: not passed on, and the test told so.
    if (gone) return void givenUp++;
    const answer = await fetch(`${fake.url}${req.url}`, {
      method: req.method,
      headers: { "Content-Type": req.headers["content-type"] ?? "application/json" },
      body,
    });
    res.writeHead(answer.status, { "Content-Type": "text/plain" });
    res.end(await answer.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    open();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: (subject: string) => held.filter((body) => has(body, subject)).length,
    givenUp: () => givenUp,
    open,
  };
}

const LOCKER = "store-faults-psql";

/**
 * psql, as the owner would run it, in a transaction holding both of the store's tables in ACCESS EXCLUSIVE
 * mode for `seconds`, then until `commit()`.
 */
function psqlLock(database: string, seconds: number) {
  const named = `${database}?application_name=${LOCKER}`;
  const child = spawn("psql", ["--no-psqlrc", "--quiet", "-v", "ON_ERROR_STOP=1", named]);
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  cleanups.push(() => child.exitCode === null && child.kill());
  child.stdin.write(
    `BEGIN;\nLOCK TABLE messages, records IN ACCESS EXCLUSIVE MODE;\nSELECT pg_sleep(${seconds});\n`,
  );
  return {
    output: () => output,
    commit: () => (child.stdin.end("COMMIT;\n"), exited),
  };
}

/** How many of the store's two tables the psql session holds in ACCESS EXCLUSIVE mode now. */
async function psqlHolds(database: string) {
  const [row] = await query<{ n: string }>(
    database,
    `SELECT COUNT(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE a.application_name = '${LOCKER}' AND l.granted AND l.mode = 'AccessExclusiveLock'
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND l.relation IN ('messages'::regclass, 'records'::regclass)`,
  );
  return Number(row!.n);
}

describe("a psql session holds the store's tables", { timeout: 90_000 }, () => {
  it("for 15 s from a send's request to its 200: pages and /healthz answer under the lock, a visitor hears a 303 or the 503 text, never a 500; after it the mail leaves the store, sent once", async () => {
    const database = await freshDatabase();
    const held = await door();
    const server = await start(database, { EMAILJS_API_URL: held.url });
    const subject = "Sent under a psql lock";
    const posted = post(server, subject);
    await expect.poll(() => held.held(subject), { timeout: 10_000, interval: 20 }).toBe(1);
    // Taken while EmailJS holds its answer: the removal after the 200 meets the lock.
    const psql = psqlLock(database, 15);
    await expect.poll(() => psqlHolds(database), { timeout: 10_000, interval: 50 }).toBe(2);
    held.open();
    const under = "Posted under a psql lock";
    const postedUnder = post(server, under, "203.0.113.31");
    expect((await posted).status).toBe(303);

    // Past the store's 5 s lock timeout it refuses; the server itself is not held meanwhile.
    await expect.poll(() => health(server), { timeout: 15_000, interval: 100 }).toBe("refusing_writes");
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    const healthz = await fetch(`${server.url}/healthz`);
    expect(healthz.status).toBe(200);
    const answered = await postedUnder;
    expect([303, 503]).toContain(answered.status);
    if (answered.status === 503) {
      const text = await answered.text();
      expect(text).toContain("It could not be kept to send later: please write to me at");
      expect(text).toContain(under);
    }
    // All of that while psql still held both tables.
    expect(await psqlHolds(database)).toBe(2);
    expect(mailed(subject)).toBe(1);

    expect(await psql.commit(), psql.output()).toBe(0);
    // Removed once the lock is free, long before its claim could end: it is never sent a second time.
    await expect
      .poll(() => keptSubjects(database), { timeout: 15_000, interval: 100 })
      .toEqual(answered.status === 303 ? [under] : []);
    if (answered.status === 303) {
      await expect.poll(() => mailed(under), { timeout: 15_000, interval: 100 }).toBe(1);
      await expect.poll(() => keptSubjects(database), { timeout: 15_000, interval: 100 }).toEqual([]);
    }
    await expect.poll(() => health(server), { timeout: 10_000, interval: 100 }).toBe("ok");
    expect([held.held(subject), held.givenUp(), arrivals(subject).length]).toEqual([1, 0, 1]);
    expect(arrivals(under)).toHaveLength(answered.status === 303 ? 1 : 0);
    // A write to a table psql did not lock may say store_ok meanwhile (decision 063): the two alternate,
    // refusing first, and the last is store_ok.
    const said = healthLines(server);
    expect(said[0]).toBe("store_refusing");
    expect(said.at(-1)).toBe("store_ok");
    expect(said.every((outcome, i) => i === 0 || outcome !== said[i - 1])).toBe(true);
    expect(lines(server, "redelivery_error")).toBe(0);
    expect(server.output()).not.toMatch(/"status":500|Unhandled|uncaught/i);
  });
});

/** Records each removal of a kept message, with when it landed: the database's clock, not the test's. */
async function noteDeletions(database: string) {
  await query(
    database,
    `CREATE TABLE deletions (id TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp());
     CREATE FUNCTION note_deletion() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN INSERT INTO deletions (id) VALUES (OLD.id); RETURN OLD; END $$;
     CREATE TRIGGER noted AFTER DELETE ON messages FOR EACH ROW EXECUTE FUNCTION note_deletion();`,
  );
}

describe("the PostgreSQL server stops", { timeout: 120_000 }, () => {
  it("between EmailJS's 200 and the removal: once it is back the message leaves the store, mailed exactly once", async () => {
    const postgres = await ownPostgres();
    const database = await freshDatabase(postgres.url);
    const held = await door();
    const server = await start(database, { EMAILJS_API_URL: held.url });
    await noteDeletions(database);
    const subject = "Sent across a PostgreSQL restart";
    const posted = post(server, subject);
    await expect.poll(() => held.held(subject), { timeout: 10_000, interval: 20 }).toBe(1);
    await postgres.stop();
    // EmailJS's 200 only now: the removal after it finds no database.
    held.open();
    expect((await posted).status).toBe(303);
    await expect.poll(() => lines(server, "store_refusing"), { timeout: 20_000, interval: 50 }).toBe(1);
    expect(await health(server)).toBe("refusing_writes");
    expect((await fetch(`${server.url}/`)).status).toBe(200);

    await postgres.start();
    await expect.poll(() => keptSubjects(database), { timeout: 20_000, interval: 100 }).toEqual([]);
    await expect.poll(() => health(server), { timeout: 10_000, interval: 100 }).toBe("ok");
    // Removed once, and only after the restart: the removal that followed the 200 had failed.
    const [removal] = await query<{ n: string; after: boolean }>(
      database,
      "SELECT COUNT(*) AS n, bool_and(at > pg_postmaster_start_time()) AS after FROM deletions",
    );
    expect(removal).toEqual({ n: "1", after: true });
    expect([held.held(subject), held.givenUp(), arrivals(subject).length, mailed(subject)]).toEqual([
      1, 0, 1, 1,
    ]);
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

  it("before the site starts: the owner's status names the database it cannot reach in one line and exits 1; the server waits, saying so once, and serves once it is up", async () => {
    const postgres = await ownPostgres();
    const database = await freshDatabase(postgres.url);
    const url = new URL(database);
    const where = `the PostgreSQL database ${url.pathname.slice(1)} at ${url.host}`;
    await postgres.stop();
    const outbox = await outboxDir();

    const status = await runOutboxCli(["status"], envFor(database, outbox));
    expect(status.stdout).toBe("");
    expect(status.stderr).toMatch(new RegExp(`^StoreError: cannot reach ${where}: [^\\n]+\\n$`));
    expect(status.stderr).not.toContain(url.password);
    expect(status.code).toBe(1);

    // Started as `npm start` starts it, watched from its first line: it is not listening yet.
    const port = await freePort();
    let log = "";
    const child: ChildProcess = spawn(process.execPath, ["build/server.js"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        CONTACT_BOT_CHECKS: "off",
        ...envFor(database, outbox),
        PORT: String(port),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (chunk) => (log += chunk));
    child.stderr!.on("data", (chunk) => (log += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    cleanups.push(() => (child.exitCode === null && child.kill("SIGKILL"), exited));
    await expect
      .poll(() => log, { timeout: 20_000, interval: 50 })
      .toContain(`"outcome":"store_waiting","where":"${where}"`);
    expect(child.exitCode).toBeNull();

    await postgres.start();
    const server = `http://127.0.0.1:${port}`;
    await answering(`${server}/healthz`, "the server", child, () => log);
    const subject = "Posted once the database is up";
    const response = await postForm(
      `${server}/?index`,
      { ...VALID, subject, message: `${VALID.message} ${subject}` },
      { ...BROWSER_HEADERS, "X-Forwarded-For": "203.0.113.70" },
    );
    expect(response.status).toBe(303);
    expect(mailed(subject)).toBe(1);
    expect(log.split('"outcome":"store_waiting"')).toHaveLength(2);
    expect(log).not.toContain(url.password);
    expect(log).not.toMatch(/StoreError|Unhandled|uncaught/i);
    const up = await runOutboxCli(["status"], envFor(database, outbox));
    expect([up.code, up.stderr]).toEqual([0, ""]);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});

describe("a sender killed mid-send", { timeout: 90_000 }, () => {
  it("leaves it uncertain and held until its claim ends; the next sender then sends it once, as uncertain", async () => {
    const database = await freshDatabase();
    const outbox = await outboxDir();
    const cli = (args: string[]) => runOutboxCli(args, envFor(database, outbox));
    const subject = "Killed mid-send on PostgreSQL";
    fake.setMode({ kind: "hang" }, subject);
    const first = await start(database);
    void post(first, subject).catch(() => undefined);
    await expect.poll(() => arrivals(subject).length, { timeout: 10_000, interval: 20 }).toBe(1);
    const killedAt = Date.now();
    first.child.kill("SIGKILL");
    await first.stop();
    servers = [];

    const listed = await cli(["list"]);
    const next = Date.parse(/next attempt (\S+),/.exec(listed.stdout)?.[1] ?? "");
    expect(listed.stdout).toContain("uncertain: may have been delivered");
    expect(next).toBeGreaterThan(killedAt + 50_000);
    // A 429 is no sign of its own that it may have arrived: only being taken from a dead sender makes it uncertain.
    const tooMany: FakeMode = {
      kind: "status",
      status: 429,
      body: "Too Many Requests",
      headers: { "Retry-After": "0" },
    };
    fake.setMode(tooMany, subject);
    const second = await start(database);
    await expect.poll(() => lines(second, "store_opened")).toBe(1);
    expect(second.output()).toContain('"kept":1');
    const resent = await cli(["resend"]);
    expect(resent.stdout).toMatch(/^busy {2}.*uncertain: may have been delivered/m);
    expect(resent.stdout).toMatch(/1 held by another sender until its next attempt/);
    expect(arrivals(subject)).toHaveLength(1);

    // Its claim ended, as it would 60 s after it was taken: the next sender takes it, as one that may have arrived.
    await query(database, `UPDATE messages SET claimed_until = ${Date.now() - 1}`);
    await expect
      .poll(second.output, { timeout: 15_000, interval: 50 })
      .toMatch(/"outcome":"redelivery_failed","upstreamStatus":429,"attempts":1,"uncertain":true/);
    fake.setMode({ kind: "status", status: 200, body: "OK" }, subject);
    await expect.poll(() => keptSubjects(database), { timeout: 15_000, interval: 100 }).toEqual([]);
    expect(mailed(subject)).toBe(1);
    expect(second.output()).toMatch(/"outcome":"redelivered","attempts":\d+,"uncertain":true/);
  });
});
