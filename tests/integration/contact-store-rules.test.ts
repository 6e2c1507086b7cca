// The one-process engine's rules where they need the production server, its SQLite store
// (OUTBOX_DIR/outbox.sqlite), the fake EmailJS and the owner's webhook: a network's held message goes on its
// next day, "messages waiting" means waiting on the provider, a backlog drains one message per network per
// round, and a previous version's folders are imported once. The rules themselves are the rulebook's, unit
// tested on an injected clock (tests/unit/rulebook.test.ts). Last, processes that open a new store at once.
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { createBudget } from "~/contact/budget.server";
import { openDatabase } from "~/contact/database.server";
import { messageId, type Message, type WaitingFor } from "~/contact/message-state.server";
import { afterAttempt, received } from "~/contact/rulebook.server";
import { readAlertLedger } from "~/contact/notify.server";
import { startAppServer, type AppServer } from "../support/app-server";
import {
  BROWSER_HEADERS,
  VALID,
  VALID_TEMPLATE_PARAMS,
  postForm,
  relayEnv,
  testConfig,
} from "../support/contact";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { keep, keptIn, keptWith, withStore } from "../support/store";
import { startWebhookFake } from "../support/webhook-fakes";

const scratch = useFakeAndOutbox("store-rules-");
let server: AppServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const env = (extra: Record<string, string> = {}) =>
  relayEnv(scratch.fake.url, {
    OUTBOX_DIR: scratch.outbox,
    TRUST_PROXY: "1",
    CONTACT_REDELIVER_FIRST_SECONDS: "1",
    CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
    CONTACT_REDELIVER_MAX_SECONDS: "1",
    CONTACT_REDELIVER_FOR_HOURS: "1",
    ...extra,
  });

const start = async (extra: Record<string, string> = {}) => {
  server = await startAppServer({ env: env(extra) });
  return server;
};

const paramsOf = (subject: string) => ({ ...VALID_TEMPLATE_PARAMS, subject });

/**
 * A message the engine keeps waiting for the budget or its network's share, received `ageMs` ago and due at
 * `due`, stored as the engine stores it: through the rulebook.
 */
function hold(
  subject: string,
  wait: Extract<WaitingFor, "month_limit" | "network_share">,
  { network, ageMs, due }: { network: string; ageMs: number; due: number },
): Message {
  const at = Date.now() - ageMs;
  const fresh = received(paramsOf(subject), network, at);
  // Over its network's share the engine keeps it so itself (queue-sqlite.server.ts); the budget's wait is
  // the rulebook's.
  const message: Message =
    wait === "network_share"
      ? { ...fresh, state: "waiting", for: wait, nextAttempt: due }
      : afterAttempt(fresh, { ok: false, waiting: wait, until: due }, at, testConfig(env()))!;
  withStore(scratch.outbox, (db) => db.put(message));
  return message;
}

const arrivals = (subject: string) =>
  scratch.fake.requests.filter((request) => request.rawBody.includes(`"${subject}"`));
const delivered = () => scratch.fake.requests.filter((request) => request.status === 200);

/** A visitor's post from `client`, through the proxy; its status. */
async function postFrom(client: string, subject: string) {
  const response = await postForm(
    `${server!.url}/?index`,
    { ...VALID, subject },
    { ...BROWSER_HEADERS, "X-Forwarded-For": client },
  );
  return response.status;
}

describe("the store's rules on the server", { timeout: 60_000 }, () => {
  it("a message over its network's daily share is sent by itself on the network's next day, and counts in it", async () => {
    await start({ CONTACT_NETWORK_DAILY_LIMIT: "1", CONTACT_NETWORK_DAY_SECONDS: "10" });
    expect(await postFrom("198.51.100.1", "First of the day")).toBe(303);
    expect(arrivals("First of the day")).toHaveLength(1);
    expect(await postFrom("198.51.100.2", "Over the share")).toBe(303);
    expect(keptWith(scratch.outbox, "Over the share")).toMatchObject({
      state: "waiting",
      for: "network_share",
      network: "198.51.100.0/24",
    });
    expect(arrivals("Over the share")).toHaveLength(0);

    await expect.poll(() => arrivals("Over the share").length, { timeout: 30_000, interval: 100 }).toBe(1);
    await expect
      .poll(() => keptWith(scratch.outbox, "Over the share"), { timeout: 20_000, interval: 100 })
      .toBeUndefined();
    // It took the new day's share: the next message from the network waits.
    expect(await postFrom("198.51.100.3", "Next of the new day")).toBe(303);
    expect(keptWith(scratch.outbox, "Next of the new day")).toMatchObject({ for: "network_share" });
    expect(arrivals("Next of the new day")).toHaveLength(0);
  });

  it("'messages waiting' is about the provider's failures: a message held for its network neither raises it nor keeps it quiet", async () => {
    const owner = await startWebhookFake("json");
    try {
      const waitingAlerts = () =>
        owner.accepted.filter((alert) => (alert.body as { event?: string }).event === "messages_waiting");
      const alerting = {
        CONTACT_WAITING_ALERT_MINUTES: "1",
        OWNER_ALERT_URL: owner.url,
        OWNER_ALERT_FORMAT: "json",
      };
      // Held 2 hours for its network's share, which frees tomorrow: not waiting on the provider.
      hold("Held for the network", "network_share", {
        network: "198.51.100.0/24",
        ageMs: 2 * HOUR,
        due: Date.now() + DAY,
      });
      // The server looks at the alerts as it starts, then sends what is due: this one, once it has looked.
      keep(scratch.outbox, "Pass marker", { ageMs: 1_000 });
      await start(alerting);
      await expect.poll(() => arrivals("Pass marker").length, { timeout: 20_000, interval: 100 }).toBe(1);
      expect(await withStore(scratch.outbox, (db) => readAlertLedger(db.state))).toMatchObject({
        waitingTold: false,
      });
      expect(waitingAlerts()).toEqual([]);
      expect(await server!.stop()).toBe(0);

      // Then an outage: 3 messages the provider has failed for 2 minutes; the server looks again as it starts.
      scratch.fake.setMode({ kind: "status", status: 500 }, "Outage");
      for (const n of [1, 2, 3]) keep(scratch.outbox, `Outage ${n}`, { ageMs: 2 * MINUTE });
      await start(alerting);
      await expect.poll(() => waitingAlerts().length, { timeout: 20_000, interval: 100 }).toBe(1);
      expect(waitingAlerts()[0]!.body).toMatchObject({ count: 3 });
      expect(keptWith(scratch.outbox, "Held for the network")).toMatchObject({
        state: "waiting",
        for: "network_share",
      });
    } finally {
      await owner.close();
    }
  });

  it("a backlog drains fairly: 40 messages from 20 networks cannot put a 21st network's visitor behind them", async () => {
    const now = Date.now();
    for (let i = 0; i < 40; i++) {
      const network = `203.0.${i % 20}.0/24`;
      hold(`Flood ${i}`, "month_limit", { network, ageMs: 2 * HOUR - i * 1_000, due: now });
    }
    hold("Genuine visitor", "month_limit", { network: "198.51.100.0/24", ageMs: HOUR, due: now });
    // The month turned: 21 mails left in it, one round's worth.
    await start({ CONTACT_MONTHLY_SEND_LIMIT: "21" });

    await expect.poll(() => delivered().length, { timeout: 30_000, interval: 100 }).toBe(21);
    // The rest wait for the next month: nothing more goes out.
    await expect
      .poll(() => keptIn(scratch.outbox).filter((m) => m.nextAttempt! > Date.now()).length, {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(20);
    expect(delivered()).toHaveLength(21);
    expect(arrivals("Genuine visitor")).toHaveLength(1);
    const firsts = Array.from({ length: 20 }, (_, i) => arrivals(`Flood ${i}`).length);
    expect(firsts).toEqual(Array(20).fill(1));
    expect(keptIn(scratch.outbox).every((m) => m.for === "month_limit")).toBe(true);
  });

  it("a previous version's folders are imported once at start: held stays held, given up stays given up, the waiting are sent, each file without a network its own turn", async () => {
    const outbox = scratch.outbox;
    const monthly = 10;
    const folder = async (name: string) => {
      await mkdir(path.join(outbox, name), { recursive: true, mode: 0o700 });
      return path.join(outbox, name);
    };
    const iso = (agoMs: number) => new Date(Date.now() - agoMs).toISOString();
    /** A kept message's file as the previous version wrote it: named by its content hash. */
    const file = async (name: string, subject: string, fields: Record<string, unknown>) => {
      const params = paramsOf(subject);
      const entry = { lib_version: "4.4.1", template_params: params, uncertain: false, ...fields };
      await writeFile(path.join(await folder(name), `${messageId(params)}.json`), JSON.stringify(entry), {
        mode: 0o600,
      });
    };
    const failed = (agoMs: number) => ({
      time: iso(agoMs),
      for: "provider",
      failure: "upstream_error",
      upstreamStatus: 500,
      attempts: 1,
      failedAt: iso(agoMs),
      nextAttempt: iso(agoMs - 1_000),
    });
    // Three from one network, the oldest, failed once: one turn a round between them.
    for (const n of [1, 2, 3]) {
      await file("undelivered", `Network ${n}`, {
        ...failed(3 * HOUR - n * MINUTE),
        network: "203.0.113.0/24",
      });
    }
    // Three without a network, each its own: one in the earlier version's words, one without a time.
    await file("undelivered", "Alone 1", {
      time: iso(2 * HOUR),
      reason: "upstream_error",
      upstreamStatus: 500,
    });
    await file("undelivered", "Alone 2", {
      time: iso(2 * HOUR - MINUTE),
      for: "day_limit",
      upstreamStatus: 0,
    });
    await file("undelivered", "Alone 3", { reason: "over_monthly_limit", upstreamStatus: 0 });
    await file("undelivered", "Refused", {
      time: iso(DAY),
      for: "refused_by_provider",
      failure: "refused_by_provider",
      upstreamStatus: 400,
      providerText: "The template rejected this message",
    });
    await file("undelivered", "Given up", {
      ...failed(5 * DAY),
      attempts: 12,
      gaveUp: true,
      gaveUpAt: iso(DAY),
      network: "192.0.2.0/24",
    });
    await file("spam", "Spam", {
      time: iso(HOUR),
      for: "suspected_spam",
      upstreamStatus: 0,
      signals: ["many_links"],
      network: "192.0.2.0/24",
    });
    await writeFile(path.join(await folder("undelivered"), "not-a-message.json"), "{}", { mode: 0o600 });
    // The shared records: this month's budget, 4 mails left of it.
    const config = testConfig(env({ CONTACT_MONTHLY_SEND_LIMIT: String(monthly) }));
    const memory = openDatabase(null);
    await createBudget(config.budget, memory.state).take();
    const ledger = await memory.state.read<{ dayUsed: number; monthUsed: number }>("budget", {
      dayUsed: 0,
      monthUsed: 0,
    });
    memory.close();
    await writeFile(
      path.join(await folder("state"), "budget.json"),
      JSON.stringify({ ...ledger, dayUsed: monthly - 4, monthUsed: monthly - 4 }),
      { mode: 0o600 },
    );

    await start({ CONTACT_MONTHLY_SEND_LIMIT: String(monthly) });
    expect(server!.output()).toContain('"outcome":"imported","count":9');
    const folders = () => readdirSync(outbox).filter((name) => !name.startsWith("outbox.sqlite"));
    expect(folders().sort()).toEqual(["spam.imported", "state.imported", "undelivered.imported"]);
    // What was not a message stays where it was, in the renamed folder.
    expect(existsSync(path.join(outbox, "undelivered.imported", "not-a-message.json"))).toBe(true);

    // The 4 mails left: the first round, in which each file without a network has a turn of its own.
    const waiting = () => keptIn(outbox).filter((m) => m.state === "waiting");
    await expect.poll(() => delivered().length, { timeout: 20_000, interval: 100 }).toBe(4);
    await expect
      .poll(() => waiting().every((m) => m.for === "month_limit" && m.nextAttempt! > Date.now()), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(true);
    const sent = ["Network 1", "Alone 1", "Alone 2", "Alone 3"];
    expect(
      delivered()
        .map((request) => (request.body as { template_params: { subject: string } }).template_params.subject)
        .sort(),
    ).toEqual(sent.sort());
    const byState = () =>
      Object.fromEntries(keptIn(outbox).map((m) => [m.params.subject, `${m.state}: ${m.for}`]));
    const after = {
      "Network 2": "waiting: month_limit",
      "Network 3": "waiting: month_limit",
      Refused: "held: refused_by_provider",
      "Given up": "given_up: provider",
      Spam: "held: suspected_spam",
    };
    expect(byState()).toEqual(after);
    expect(keptWith(outbox, "Refused")).toMatchObject({
      providerText: "The template rejected this message",
      nextAttempt: null,
    });
    expect(keptWith(outbox, "Spam")).toMatchObject({ signals: ["many_links"], nextAttempt: null });
    expect(keptWith(outbox, "Given up")).toMatchObject({ attempts: 12, nextAttempt: null });

    // A restart imports nothing again: what was sent is not back, and nothing is there twice.
    expect(await server!.stop()).toBe(0);
    await start({ CONTACT_MONTHLY_SEND_LIMIT: String(monthly) });
    expect(server!.output()).not.toContain('"outcome":"imported"');
    expect(folders().sort()).toEqual(["spam.imported", "state.imported", "undelivered.imported"]);
    expect(byState()).toEqual(after);
    expect(delivered()).toHaveLength(4);
  });
});

describe("the store file", { timeout: 60_000 }, () => {
  it("processes that open a new store at the same moment (two replicas starting, the owner's CLI) all open it", async () => {
    // The module as Node runs it (types stripped): each process opens the file with the server's own code.
    const database = path.resolve("app/contact/database.server.ts");
    // SQLite refuses the switch to WAL at once when it collides with another process's first opening or
    // closing of the file: one time in about a hundred, so many openings.
    const open = `import { openDatabase } from ${JSON.stringify(database)}; openDatabase(process.argv[1]).close();`;
    const failures: string[] = [];
    for (let round = 0; round < 10; round++) {
      const dir = await mkdtemp(path.join(tmpdir(), "store-open-"));
      const opened = await Promise.allSettled(
        Array.from({ length: 6 }, () =>
          promisify(execFile)(process.execPath, ["--input-type=module", "-e", open, dir]),
        ),
      );
      for (const result of opened) {
        if (result.status === "rejected") failures.push((result.reason as { stderr: string }).stderr);
      }
      await rm(dir, { recursive: true, force: true });
    }
    expect(failures).toEqual([]);
  });
});
