// The give-up and retention clocks at their shortest settings (an hour of tries, a day kept), on the SQLite
// store and on PostgreSQL: only the provider's failures count as tries, and only given-up and held messages are
// deleted, counted from when they were given up or held (decisions 057, 063). A day is brought forward in the
// store (the `since` of each kept message, rewritten through the store's own adapter), never waited for.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgresStore } from "~/contact/store/postgres.server";
import type { Store } from "~/contact/store/store.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { postSubject, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { runOutboxCli } from "../support/outbox-cli";
import { freshDatabase } from "../support/postgres-server";
import { withStore } from "../support/store";
import { until } from "../support/until";

let fake: EmailJsFake;
let app: AppServer;
let outbox: string;
let database: string | null;
let env: Record<string, string>;

afterEach(async () => {
  await app?.stop();
  await fake?.close();
  await rm(outbox, { recursive: true, force: true });
});

/** Tries every 30 minutes for an hour: three in all; kept a day once given up or held. */
async function start(onPostgres: boolean, extra: Record<string, string> = {}) {
  fake = await startEmailJsFake();
  outbox = await mkdtemp(path.join(tmpdir(), "queue-retention-"));
  database = onPostgres ? await freshDatabase() : null;
  env = relayEnv(fake.url, {
    OUTBOX_DIR: outbox,
    ...(database ? { DATABASE_URL: database } : {}),
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

/** The server's store, opened beside it by the test as the owner's CLI opens it. */
async function inStore<T>(work: (db: Store) => Promise<T>): Promise<T> {
  if (!database) return withStore(outbox, work);
  const db = await openPostgresStore(database, () => undefined);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

describe.each([
  ["the SQLite store", false],
  ["a PostgreSQL database", true],
])("on %s", (_name, onPostgres) => {
  it("a wait for the day's budget is never a try: sent on, it stays waiting with no attempt counted", async () => {
    await start(onPostgres, { CONTACT_DAILY_SEND_LIMIT: "1" });
    expect(await post("First of the day")).toBe(303);
    expect(await post("Over the day")).toBe(303);
    for (let i = 0; i < 4; i++) expect((await cli("resend")).code).toBe(1);
    const listed = line((await cli("list")).stdout, "Over the day");
    expect(listed).toMatch(/\(waiting: day limit, next attempt \S+, 0 attempt\(s\)\)/);
    expect(fake.requests).toHaveLength(1);
  }, 120_000);

  it("three failed tries in the hour give a message up; a day after, it and a held spam are deleted, a waiting one is not", async () => {
    await start(onPostgres, { CONTACT_DAILY_SEND_LIMIT: "1" });
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

    // A day and a minute later, for each: given up, held, and kept waiting since (the rulebook's `since`).
    const dayAgo = Date.now() - 86_460_000;
    await inStore(async (db) => {
      for (const id of [
        idIn(line(listed, "Failing")),
        idIn(line(spam, "Held spam")),
        idIn(line(listed, "Waits for tomorrow")),
      ]) {
        const kept = (await db.get(id))!.message;
        await db.put({ ...kept, since: dayAgo });
      }
    });
    // Retention is looked at every 30 s, and first at start: a restarted server looks at once.
    await app.stop();
    app = await startAppServer({ env });
    await until(async () => !(await cli("list")).stdout.includes('"Failing"'), "the given-up one deleted");
    await until(
      async () => (await cli("spam", "list")).stdout.includes("0 suspected spam message(s)"),
      "the held spam deleted",
    );
    expect(line((await cli("list")).stdout, "Waits for tomorrow")).toContain("waiting: day limit");
    expect(app.output()).toMatch(/"outcome":"purged","for":"uncertain","reason":"expired","ageDays":1/);
    expect(app.output()).toMatch(/"outcome":"purged","for":"suspected_spam","reason":"expired","ageDays":1/);
  }, 120_000);
});
