// The store's connection pool on PostgreSQL (pg's default of 10 connections) against sends that hang: more
// visitors' sends wait on EmailJS at once than the pool has connections, and other visitors are still
// answered meanwhile, since no connection or transaction is held across a call to EmailJS.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { freshDatabase, queryDatabase as query } from "../support/postgres-server";

/** pg's Pool holds at most this many connections unless told otherwise, and the store's does not say. */
const POOL_SIZE = 10;
const HANGING = POOL_SIZE + 2;

let fake: EmailJsFake;
let outbox: string;
let server: AppServer | null = null;
beforeAll(async () => {
  fake = await startEmailJsFake();
  outbox = await mkdtemp(path.join(tmpdir(), "store-pool-pg-"));
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
  await rm(outbox, { recursive: true, force: true });
});
afterEach(() => fake.reset());

const post = (subject: string, client: string) =>
  postForm(
    `${server!.url}/?index`,
    { ...VALID, subject, message: `${VALID.message} ${subject}` },
    { ...BROWSER_HEADERS, "X-Forwarded-For": client },
  );
const arrivals = (subject: string) => fake.requests.filter((r) => r.rawBody.includes(`"${subject}"`));
const mailed = (subject: string) => arrivals(subject).filter((request) => request.status === 200).length;
/** Sends that ended without EmailJS's answer: a hanging one ends so, at its attempt's timeout. */
const endedUnanswered = () => server!.output().split('"outcome":"relayed","ok":false').length - 1;

it(`${HANGING} sends hanging at EmailJS at once, more than the pool's ${POOL_SIZE} connections: meanwhile another visitor is answered and mailed, pages and /healthz answer, and no session waits in a transaction; each hanging one is mailed once later`, async () => {
  const database = await freshDatabase();
  server = await startAppServer({
    env: relayEnv(fake.url, {
      OUTBOX_DIR: outbox,
      DATABASE_URL: database,
      TRUST_PROXY: "1",
      CONTACT_REDELIVER_FIRST_SECONDS: "1",
      CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
      CONTACT_REDELIVER_MAX_SECONDS: "1",
    }),
  });
  fake.setMode({ kind: "hang" }, "Hanging send");
  const subjects = Array.from({ length: HANGING }, (_, i) => `Hanging send ${i + 1}`);
  // Each from a network of its own: none is held back by its client's or its network's allowances.
  const hanging = subjects.map((subject, i) => post(subject, `198.51.${i + 1}.10`));
  let settled = 0;
  for (const answer of hanging) void answer.finally(() => settled++).catch(() => undefined);

  // All at EmailJS together: each took what it needed of the pool, and none holds a connection now.
  const atEmailJs = () => subjects.reduce((sum, subject) => sum + arrivals(subject).length, 0);
  await expect.poll(atEmailJs, { timeout: 10_000, interval: 20 }).toBe(HANGING);
  expect([settled, endedUnanswered()]).toEqual([0, 0]);
  const waitingInTransaction = await query<{ n: string }>(
    database,
    `SELECT COUNT(*) AS n FROM pg_stat_activity
     WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
  );
  expect(Number(waitingInTransaction[0]!.n)).toBe(0);

  const other = "Posted while sends hang";
  const answered = await post(other, "203.0.113.80");
  expect(answered.status).toBe(303);
  expect(mailed(other)).toBe(1);
  expect((await fetch(`${server.url}/`)).status).toBe(200);
  const healthz = await fetch(`${server.url}/healthz`);
  expect(healthz.status).toBe(200);
  expect(((await healthz.json()) as { store: string }).store).toBe("ok");
  // All of that before any hanging send ended: the pool was not theirs while they waited.
  expect([settled, endedUnanswered()]).toEqual([0, 0]);

  // Each ends at its attempt's timeout, kept as one that may have arrived: a 504, never a 500.
  const statuses = await Promise.all(hanging.map((answer) => answer.then((response) => response.status)));
  expect(statuses).toEqual(subjects.map(() => 504));
  expect(endedUnanswered()).toBe(HANGING);
  fake.setMode({ kind: "status", status: 200, body: "OK" }, "Hanging send");
  await expect
    .poll(async () => (await query(database, "SELECT id FROM messages")).length, {
      timeout: 30_000,
      interval: 200,
    })
    .toBe(0);
  expect(subjects.map(mailed)).toEqual(subjects.map(() => 1));
  expect(server.output()).not.toMatch(/store_refusing|redelivery_error|Unhandled|uncaught/);
}, 90_000);
