// The one-process engine's rules where they need the production server, its SQLite store
// (OUTBOX_DIR/outbox.sqlite), the fake EmailJS and the owner's webhook: a network's held message goes on its
// next day, "messages waiting" means waiting on the provider, a backlog drains one message per network per
// round. The rules themselves are the rulebook's, unit tested on an injected clock (tests/unit/rulebook.test.ts).
// Last, processes that open a new store at once.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import { type Message, type WaitingFor } from "~/contact/rules/message.server";
import { afterAttempt, received } from "~/contact/rules/rulebook.server";
import { readAlertLedger } from "~/contact/alerts/notify.server";
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
async function hold(
  subject: string,
  wait: Extract<WaitingFor, "month_limit" | "network_share">,
  { network, ageMs, due }: { network: string; ageMs: number; due: number },
): Promise<Message> {
  const at = Date.now() - ageMs;
  const fresh = received(paramsOf(subject), network, at);
  // Over its network's share the engine keeps it so itself (delivery/engine.server.ts); the budget's wait is
  // the rulebook's.
  const message: Message =
    wait === "network_share"
      ? { ...fresh, state: "waiting", for: wait, nextAttempt: due }
      : afterAttempt(fresh, { ok: false, waiting: wait, until: due }, at, testConfig(env()))!;
  await withStore(scratch.outbox, (db) => db.put(message));
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
    expect(await keptWith(scratch.outbox, "Over the share")).toMatchObject({
      state: "waiting",
      for: "network_share",
      network: "198.51.100.0/24",
    });
    expect(arrivals("Over the share")).toHaveLength(0);

    await expect.poll(() => arrivals("Over the share").length, { timeout: 30_000, interval: 100 }).toBe(1);
    await expect
      .poll(async () => await keptWith(scratch.outbox, "Over the share"), { timeout: 20_000, interval: 100 })
      .toBeUndefined();
    // It took the new day's share: the next message from the network waits.
    expect(await postFrom("198.51.100.3", "Next of the new day")).toBe(303);
    expect(await keptWith(scratch.outbox, "Next of the new day")).toMatchObject({ for: "network_share" });
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
      await hold("Held for the network", "network_share", {
        network: "198.51.100.0/24",
        ageMs: 2 * HOUR,
        due: Date.now() + DAY,
      });
      // The server looks at the alerts as it starts, then sends what is due: this one, once it has looked.
      await keep(scratch.outbox, "Pass marker", { ageMs: 1_000 });
      await start(alerting);
      await expect.poll(() => arrivals("Pass marker").length, { timeout: 20_000, interval: 100 }).toBe(1);
      expect(await withStore(scratch.outbox, (db) => readAlertLedger(db.state))).toMatchObject({
        waitingTold: false,
      });
      expect(waitingAlerts()).toEqual([]);
      expect(await server!.stop()).toBe(0);

      // Then an outage: 3 messages the provider has failed for 2 minutes; the server looks again as it starts.
      scratch.fake.setMode({ kind: "status", status: 500 }, "Outage");
      for (const n of [1, 2, 3]) await keep(scratch.outbox, `Outage ${n}`, { ageMs: 2 * MINUTE });
      await start(alerting);
      await expect.poll(() => waitingAlerts().length, { timeout: 20_000, interval: 100 }).toBe(1);
      expect(waitingAlerts()[0]!.body).toMatchObject({ count: 3 });
      expect(await keptWith(scratch.outbox, "Held for the network")).toMatchObject({
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
      await hold(`Flood ${i}`, "month_limit", { network, ageMs: 2 * HOUR - i * 1_000, due: now });
    }
    await hold("Genuine visitor", "month_limit", { network: "198.51.100.0/24", ageMs: HOUR, due: now });
    // The month turned: 21 mails left in it, one round's worth.
    await start({ CONTACT_MONTHLY_SEND_LIMIT: "21" });

    await expect.poll(() => delivered().length, { timeout: 30_000, interval: 100 }).toBe(21);
    // The rest wait for the next month: nothing more goes out.
    await expect
      .poll(async () => (await keptIn(scratch.outbox)).filter((m) => m.nextAttempt! > Date.now()).length, {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(20);
    expect(delivered()).toHaveLength(21);
    expect(arrivals("Genuine visitor")).toHaveLength(1);
    const firsts = Array.from({ length: 20 }, (_, i) => arrivals(`Flood ${i}`).length);
    expect(firsts).toEqual(Array(20).fill(1));
    expect((await keptIn(scratch.outbox)).every((m) => m.for === "month_limit")).toBe(true);
  });
});

describe("the store file", { timeout: 60_000 }, () => {
  it("processes that open a new store at the same moment (two replicas starting, the owner's CLI) all open it", async () => {
    // The store's own code, bundled once, opened by bare Node processes: the server's opening, at a Node start each.
    const opener = path.join(await mkdtemp(path.join(tmpdir(), "store-opener-")), "open.mjs");
    await build({
      entryPoints: [path.resolve("app/contact/store/sqlite.server.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: opener,
      logLevel: "silent",
    });
    const open = `const { openSqliteStore } = await import(${JSON.stringify(opener)});
      await (await openSqliteStore(process.argv[1], () => {})).close();`;
    // SQLite refuses the switch to WAL at once when it collides with another process's first opening or
    // closing of the file: one time in about a hundred, so many openings.
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
