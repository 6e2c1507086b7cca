// The queue's give-up and retention clocks at their shortest settings (an hour of tries, a day kept): only
// the provider's failures count as tries, and only given-up and held jobs are deleted, counted from when
// they were given up or held (decisions 053, 057). A day is brought forward in Redis, never waited for.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { postSubject, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { runOutboxCli } from "../support/outbox-cli";
import { startRedisServer, type RedisServer } from "../support/redis-server";
import { until } from "../support/until";

let redis: RedisServer;
let fake: EmailJsFake;
let app: AppServer;
let outbox: string;
let env: Record<string, string>;

beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(() => redis?.stop());
afterEach(async () => {
  await app?.stop();
  await fake?.close();
  await rm(outbox, { recursive: true, force: true });
  await redis.flush();
});

/** Tries every 30 minutes for an hour: three in all; kept a day once given up or held. */
async function start(extra: Record<string, string> = {}) {
  fake = await startEmailJsFake();
  outbox = await mkdtemp(path.join(tmpdir(), "queue-retention-"));
  env = relayEnv(fake.url, {
    OUTBOX_DIR: outbox,
    REDIS_URL: redis.url,
    CONTACT_REDELIVER_FOR_HOURS: "1",
    CONTACT_REDELIVER_FIRST_SECONDS: "1800",
    CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1800",
    CONTACT_REDELIVER_MAX_SECONDS: "1800",
    CONTACT_KEEP_DAYS: "1",
    ...extra,
  });
  app = await startAppServer({ env });
}

const post = (subject: string, values: Record<string, string> = {}) => postSubject(app.url, subject, values);
const cli = (...args: string[]) => runOutboxCli(args, env);
const line = (stdout: string, subject: string) =>
  stdout.split("\n").find((text) => text.includes(`"${subject}"`)) ?? "";
const idIn = (text: string) => /([0-9a-f]{32})$/.exec(text)?.[1] ?? "";

it("a wait for the day's budget is never a try: sent on, it stays waiting with no attempt counted", async () => {
  await start({ CONTACT_DAILY_SEND_LIMIT: "1" });
  expect(await post("First of the day")).toBe(303);
  expect(await post("Over the day")).toBe(303);
  for (let i = 0; i < 4; i++) expect((await cli("resend")).code).toBe(1);
  const listed = line((await cli("list")).stdout, "Over the day");
  expect(listed).toMatch(/\(waiting: day limit, next attempt \S+, 0 attempt\(s\)\)/);
  expect(fake.requests).toHaveLength(1);
}, 120_000);

it("three failed tries in the hour give a message up; a day after, it and a held spam are deleted, a waiting one is not", async () => {
  await start({ CONTACT_DAILY_SEND_LIMIT: "1" });
  fake.setMode({ kind: "status", status: 500 });
  expect(await post("Failing")).toBe(502);
  // Its second and third tries, brought forward by the owner.
  expect((await cli("resend")).code).toBe(1);
  expect((await cli("resend")).code).toBe(1);
  let listed = (await cli("list")).stdout;
  expect(line(listed, "Failing")).toMatch(
    /\(given up: uncertain, .*EmailJS said "Fake status 500", 3 attempt\(s\)\)/,
  );
  expect(fake.requests).toHaveLength(3);

  fake.setMode({ kind: "status", status: 200 });
  expect(await post("Spent the day")).toBe(303);
  expect(await post("Waits for tomorrow")).toBe(303);
  const spammy = { name: "https://spam.example", message: "Go to https://bit.ly/abc or https://x.example" };
  expect(await post("Held spam", spammy)).toBe(303);
  listed = (await cli("list")).stdout;
  const spam = (await cli("spam", "list")).stdout;
  expect(line(listed, "Waits for tomorrow")).toContain("waiting: day limit");
  expect(line(spam, "Held spam")).toContain("held: suspected spam");

  // A day and a minute later, for each: given up, held, and kept waiting since. The time a message entered
  // its state is in its job's data (the rulebook's `since`); given-up and held ones wait apart, in contact-held.
  const dayAgo = Date.now() - 86_460_000;
  const admin = new Redis(redis.url);
  const enteredADayAgo = async (key: string) => {
    const data = JSON.parse((await admin.hget(key, "data"))!) as { since: number };
    await admin.hset(key, "data", JSON.stringify({ ...data, since: dayAgo }));
  };
  await enteredADayAgo(`portfolio:contact-held:${idIn(line(listed, "Failing"))}`);
  await enteredADayAgo(`portfolio:contact-held:${idIn(line(spam, "Held spam"))}`);
  await enteredADayAgo(`portfolio:contact:${idIn(line(listed, "Waits for tomorrow"))}`);
  admin.disconnect();
  await until(
    async () => !(await cli("list")).stdout.includes('"Failing"'),
    "the given-up one deleted",
    90_000,
  );
  await until(
    async () => (await cli("spam", "list")).stdout.includes("0 suspected spam message(s)"),
    "the held spam deleted",
    90_000,
  );
  expect(line((await cli("list")).stdout, "Waits for tomorrow")).toContain("waiting: day limit");
  expect(app.output()).toMatch(/"outcome":"purged","for":"uncertain","reason":"expired","ageDays":1/);
  expect(app.output()).toMatch(/"outcome":"purged","for":"suspected_spam","reason":"expired","ageDays":1/);
}, 240_000);
