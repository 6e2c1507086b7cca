// Two production instances on one PostgreSQL database (DATABASE_URL), each with an OUTBOX_DIR of its own and no
// folder in common, a fake EmailJS that answers 429 to a request less than a second after the one before, and
// the owner's CLI on a folder of its own: what it sees comes from the database alone. Each instance's EmailJS
// address has a path of its own, so the fake's record names who sent each request.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { busiestSecond, startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { runOutboxCli } from "../support/outbox-cli";
import {
  freshDatabase,
  startPostgresServer,
  type PostgresServer,
  queryDatabase as query,
} from "../support/postgres-server";
import { until } from "../support/until";

let fake: EmailJsFake;
let instances: AppServer[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];

beforeAll(async () => {
  fake = await startEmailJsFake();
});
afterAll(() => fake?.close());
afterEach(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  instances = [];
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  fake.reset();
});

const newFolder = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "queue-instance-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
};

/** Instance `name`'s environment on `database`: its requests reach the fake at /<name>/… */
const env = (database: string, outbox: string, name = "cli", extra: Record<string, string> = {}) =>
  relayEnv(`${fake.url}/${name}`, {
    OUTBOX_DIR: outbox,
    DATABASE_URL: database,
    TRUST_PROXY: "1",
    EMAILJS_MAX_PER_SECOND: "1",
    CONTACT_RATE_LIMIT_MAX: "1000",
    CONTACT_REDELIVER_FIRST_SECONDS: "1",
    CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
    CONTACT_REDELIVER_MAX_SECONDS: "2",
    ...extra,
  });

/** Instances "a" and "b" on `database` (or one URL each), the fake enforcing EmailJS's one request a second. */
async function start(database: string | string[], extra: Record<string, string> = {}) {
  fake.limitRate(1);
  const urls = Array.isArray(database) ? database : [database, database];
  instances = await Promise.all(
    ["a", "b"].map(async (name, i) => startAppServer({ env: env(urls[i]!, await newFolder(), name, extra) })),
  );
  return instances;
}

/** The owner's CLI on a folder no instance uses. */
const cli = async (database: string, args: string[], extra: Record<string, string> = {}) =>
  runOutboxCli(args, env(database, await newFolder(), "cli", extra));

/** A no-JS visitor's post to one instance, from a network of its own. */
async function post(i: number, subject: string, to = i % instances.length) {
  const response = await postForm(
    `${instances[to]!.url}/?index`,
    { ...VALID, subject, message: `${VALID.message} ${subject}` },
    { ...BROWSER_HEADERS, "X-Forwarded-For": `10.${i % 250}.${Math.floor(i / 250)}.1` },
  );
  return { status: response.status, page: await response.text() };
}

const arrivals = (subject: string) =>
  fake.requests.filter((request) => request.rawBody.includes(`"${subject}"`));
const delivered = (subject: string) => arrivals(subject).filter((request) => request.status === 200);
/** Which instance sent a request: the first part of its path. */
const sender = (request: { path: string }) => request.path.split("/")[1];
const tooMany = () => fake.requests.filter((request) => request.status === 429);

/** The subjects of every kept message, read from the database. */
const keptSubjects = async (database: string) =>
  (await query<{ body: string }>(database, "SELECT body FROM messages ORDER BY received")).map(
    (row) => (JSON.parse(row.body) as { params: { subject: string } }).params.subject,
  );

/** A PostgreSQL server of this test's own, which it may stop, start or kill. */
async function ownPostgres(): Promise<PostgresServer> {
  const server = await startPostgresServer();
  cleanups.push(() => server.remove());
  return server;
}

/** Kills the server as a crash would: SIGKILL to its postmaster, then waits until it takes no connection. */
async function killPostgres(database: string) {
  const [setting] = await query<{ data_directory: string }>(database, "SHOW data_directory");
  const pid = Number(
    (await readFile(path.join(setting!.data_directory, "postmaster.pid"), "utf8")).split("\n")[0],
  );
  process.kill(pid, "SIGKILL");
  await until(
    () =>
      query(database, "SELECT 1").then(
        () => false,
        () => true,
      ),
    "the killed server to refuse connections",
  );
}

/**
 * A TCP relay to `database`'s server that holds each of the server's answers `delayMs` before passing it on: a
 * database that far from one instance. Its URL: `database` with the relay's port.
 */
async function farAway(database: string, delayMs: number): Promise<string> {
  const target = new URL(database);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => setTimeout(() => client.writable && client.write(chunk), delayMs));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) socket.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  const far = new URL(database);
  far.port = String((server.address() as { port: number }).port);
  return far.toString();
}

describe("instances sharing one PostgreSQL database", { timeout: 150_000 }, () => {
  it("one instance SIGKILLed mid-drain: the other sends what it left, each message once, never a 429", async () => {
    const database = await freshDatabase();
    await start(database);
    fake.setMode({ kind: "status", status: 500 });
    const subjects = Array.from({ length: 6 }, (_, i) => `Backlog ${i}`);
    const answers = await Promise.all(subjects.map((subject, i) => post(i, subject)));
    expect(answers.map(({ status }) => status).every((status) => status === 502 || status === 303)).toBe(
      true,
    );
    expect(await keptSubjects(database)).toHaveLength(6);

    fake.setMode({ kind: "status", status: 200 });
    // Killed between two of its sends: its last one answered and gone from the store, its next not yet left
    // (the pace holds it a second). Whatever it held then is the other's once its claim runs out.
    let last = "";
    await until(async () => {
      const sent = fake.requests
        .filter((request) => sender(request) === "a" && request.status === 200)
        .at(-1);
      last = /"(Backlog \d)"/.exec(sent?.rawBody ?? "")?.[1] ?? "";
      return last !== "" && !(await keptSubjects(database)).includes(last);
    }, "a message sent by the first instance and removed");
    instances[0]!.child.kill("SIGKILL");
    const killedAt = fake.requests.length;

    await until(() => subjects.every((subject) => delivered(subject).length > 0), "the backlog", 120_000);
    await until(async () => (await keptSubjects(database)).length === 0, "nothing kept");
    for (const subject of subjects) expect(delivered(subject), subject).toHaveLength(1);
    expect(fake.requests.slice(killedAt).every((request) => sender(request) === "b")).toBe(true);
    expect(tooMany()).toEqual([]);
    expect(busiestSecond(fake.requests)).toBe(1);
  });

  it("the pace counts from each answer: an instance whose database is far never sends within a second of the other", async () => {
    const database = await freshDatabase();
    // Each of instance a's statements takes 200 ms more: its request leaves that long after it took its slot.
    await start([await farAway(database, 200), database]);
    const first = post(0, "From afar", 0);
    // Its slot taken (the pace's record written), the other instance's visitor posts at once.
    await until(
      async () => (await query(database, "SELECT 1 FROM records WHERE name = 'pace'")).length === 1,
      "the first instance's slot",
    );
    const second = await post(1, "Next door", 1);
    await first;
    // Counted from the first's slot, the second left 200 ms too soon and was answered 429.
    expect(fake.requests.map((request) => [sender(request), request.status])).toEqual([
      ["a", 200],
      ["b", 200],
    ]);
    expect([(await first).status, second.status]).toEqual([303, 303]);
  });

  it("PostgreSQL restarted during a provider outage loses nothing: each kept message is sent once after", async () => {
    const postgres = await ownPostgres();
    const database = await freshDatabase(postgres.url);
    // Tried again 10 s after each failure: the restart falls between two tries. (A try the stop cuts short keeps
    // its claim until it runs out: store-faults-postgres.test.ts.)
    const again = "10";
    await start(database, {
      CONTACT_REDELIVER_FIRST_SECONDS: again,
      CONTACT_REDELIVER_UNCERTAIN_SECONDS: again,
      CONTACT_REDELIVER_MAX_SECONDS: again,
    });
    fake.setMode({ kind: "status", status: 500 });
    const subjects = Array.from({ length: 3 }, (_, i) => `Restart ${i}`);
    for (const [i, subject] of subjects.entries())
      expect([502, 303]).toContain((await post(i, subject)).status);
    const kept = await query<{ claimed: string | null; due: string }>(
      database,
      "SELECT claimed_until AS claimed, due FROM messages",
    );
    expect(kept).toHaveLength(3);
    expect(kept.every(({ claimed, due }) => claimed === null && Number(due) > Date.now())).toBe(true);

    await postgres.stop();
    await until(
      () => instances.every((instance) => instance.output().includes('"outcome":"store_refusing"')),
      "both instances to meet the stopped database",
    );
    await postgres.start();
    fake.setMode({ kind: "status", status: 200 });
    await until(
      () => subjects.every((subject) => delivered(subject).length > 0),
      "the kept messages",
      60_000,
    );
    await until(async () => (await keptSubjects(database)).length === 0, "nothing kept");
    for (const subject of subjects) expect(delivered(subject), subject).toHaveLength(1);
    expect(tooMany()).toEqual([]);
  });

  it("PostgreSQL killed while visitors post: each hears the failure text with a 503, never a 500; SIGTERM exits 0", async () => {
    const postgres = await ownPostgres();
    const database = await freshDatabase(postgres.url);
    await start(database);
    await killPostgres(database);
    for (let i = 0; i < 4; i++) {
      const subject = `Posted to a dead database ${i}`;
      const { status, page } = await post(i, subject);
      expect(status, subject).toBe(503);
      expect(page).toContain("It could not be kept to send later: please write to me at");
      expect(page).toContain(subject);
    }
    expect(fake.requests).toEqual([]);
    for (const instance of instances) {
      expect(((await (await fetch(`${instance.url}/healthz`)).json()) as { store: string }).store).toBe(
        "refusing_writes",
      );
      expect(instance.output()).not.toMatch(/"status":500|Unhandled|uncaught/i);
    }
    expect(await Promise.all(instances.map((instance) => instance.stop()))).toEqual([0, 0]);
  });

  it("the daily limit counts mails across instances; the rest wait for the next day, not given up", async () => {
    const database = await freshDatabase();
    await start(database, { CONTACT_DAILY_SEND_LIMIT: "3" });
    for (let i = 0; i < 5; i++) expect((await post(i, `Daily ${i}`)).status).toBe(303);
    let stdout = "";
    await until(async () => {
      stdout = (await cli(database, ["list"])).stdout;
      return stdout.match(/waiting: day limit/g)?.length === 2;
    }, "both others to wait for the next day");
    expect(stdout).toContain("2 undelivered message(s)");
    expect(fake.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    const status = await cli(database, ["status"], { CONTACT_DAILY_SEND_LIMIT: "3" });
    expect(status.stdout, status.stderr).toMatch(/sent today\s+3 of 3/);
  });

  it("a network's daily share counts across instances: the next waits for that network's next day, then goes by itself", async () => {
    const database = await freshDatabase();
    await start(database, { CONTACT_NETWORK_DAILY_LIMIT: "1" });
    const fromOneNetwork = (subject: string, to: number) =>
      postForm(
        `${instances[to]!.url}/?index`,
        { ...VALID, subject, message: `${VALID.message} ${subject}` },
        { ...BROWSER_HEADERS, "X-Forwarded-For": `10.9.9.${to + 1}` },
      );
    expect((await fromOneNetwork("Share 1", 0)).status).toBe(303);
    expect((await fromOneNetwork("Share 2", 1)).status).toBe(303);
    await until(() => delivered("Share 1").length === 1, "the first");
    let stdout = "";
    await until(async () => {
      stdout = (await cli(database, ["list"])).stdout;
      return /Share 2.*waiting: network share.*next attempt/.test(stdout);
    }, "the second to wait for its network's share");
    const next = Date.parse(/Share 2.*next attempt (\S+?),/.exec(stdout)![1]!);
    expect(next - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(next - Date.now()).toBeLessThan(25 * 3_600_000);
    // That day brought forward: the network's count, in the limits' table every instance reads, is gone.
    await query(database, "DELETE FROM rate_limits WHERE key LIKE 'contact-mailed-network%'");
    expect((await cli(database, ["resend"])).code).toBe(0);
    await until(() => delivered("Share 2").length === 1, "the second, on its network's next day");
    expect(arrivals("Share 2")).toHaveLength(1);
  });

  it("a suspected spam kept by one instance is released from the owner's CLI and sent once, by either", async () => {
    const database = await freshDatabase();
    await start(database);
    const spammy = { ...VALID, name: "https://spam.example", subject: "Maybe spam" };
    const message = "Go to https://bit.ly/abc or https://x.example";
    expect(
      (await postForm(`${instances[0]!.url}/?index`, { ...spammy, message }, BROWSER_HEADERS)).status,
    ).toBe(303);
    const listed = await cli(database, ["spam", "list"]);
    expect(listed.stdout).toContain("1 suspected spam message(s)");
    const id = /([0-9a-f]{32})\s*$/m.exec(listed.stdout)![1]!;
    expect((await cli(database, ["spam", "release", id])).stdout).toMatch(/released/);
    await until(() => delivered("Maybe spam").length === 1, "the released message");
    expect((await cli(database, ["spam", "list"])).stdout).toContain("0 suspected spam message(s)");
    expect(arrivals("Maybe spam")).toHaveLength(1);
  });
});
