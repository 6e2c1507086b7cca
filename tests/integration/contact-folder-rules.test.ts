// The folder engine's rules on the production server, the fake EmailJS and the CLI (decision 052): the
// give-up clock counts only the provider's failures, retention only what waits for the owner, files that
// are not messages take no place, a network's held messages go on its next day, "messages waiting" means
// waiting on the provider, and a backlog drains one message per network per round.
import { mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { undeliveredFileName, type UndeliveredEntry } from "~/contact/store.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, VALID_TEMPLATE_PARAMS, postForm, relayEnv } from "../support/contact";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { startWebhookFake } from "../support/webhook-fakes";

const scratch = useFakeAndOutbox("folder-rules-");
let server: AppServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

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
const fileOf = (folder: string, subject: string) =>
  path.join(scratch.outbox, folder, undeliveredFileName(paramsOf(subject)));

/** A kept message in `folder`, written as the server writes one. */
async function keep(subject: string, fields: Partial<UndeliveredEntry>, folder = "undelivered") {
  await mkdir(path.join(scratch.outbox, folder), { recursive: true, mode: 0o700 });
  const entry: UndeliveredEntry = {
    lib_version: "4.4.1",
    template_params: paramsOf(subject),
    time: new Date().toISOString(),
    for: "provider",
    failure: "upstream_error",
    upstreamStatus: 500,
    uncertain: false,
    ...fields,
  };
  await writeFile(fileOf(folder, subject), JSON.stringify(entry), { mode: 0o600 });
}

async function entryOf(subject: string, folder = "undelivered"): Promise<UndeliveredEntry | null> {
  try {
    return JSON.parse(await readFile(fileOf(folder, subject), "utf8"));
  } catch {
    return null;
  }
}

const arrivals = (subject: string) =>
  scratch.fake.requests.filter((request) => request.rawBody.includes(`"${subject}"`));

const log = () => server?.output() ?? "";

/** A visitor's post from `client`, through the proxy; its status. */
async function postFrom(client: string, subject: string) {
  const response = await postForm(
    `${server!.url}/?index`,
    { ...VALID, subject },
    { ...BROWSER_HEADERS, "X-Forwarded-For": client },
  );
  return response.status;
}

describe("the folder engine's rules", { timeout: 60_000 }, () => {
  it("gives a message up only after CONTACT_REDELIVER_FOR_HOURS of the provider's failures, never for time held", async () => {
    // Held 4 days for the budget, never failed: its first failure starts the clock.
    await keep("Held for the budget", { time: ago(4 * DAY), for: "day_limit", upstreamStatus: 0 });
    // Failed once 2 hours ago, then waited for the owner's fix (or a stopped server): 1 s of failing.
    await keep("Waited for the owner", {
      time: ago(2 * HOUR),
      failedAt: ago(2 * HOUR),
      nextAttempt: ago(2 * HOUR - 1_000),
      attempts: 1,
    });
    // Kept a moment ago, but the provider has failed it for an hour less a second.
    await keep("Failed for an hour", { failedAt: new Date().toISOString(), failedSeconds: 3_599 });
    for (const subject of ["Held for the budget", "Waited for the owner", "Failed for an hour"]) {
      scratch.fake.setMode({ kind: "status", status: 500, body: "Internal error" }, subject);
    }
    await start();

    const progress = async (subject: string) => {
      if ((await entryOf(subject))?.gaveUp) return "given up";
      return arrivals(subject).length >= 2 ? "tried again" : "waiting";
    };
    const state = async () => ({
      budget: await progress("Held for the budget"),
      owner: await progress("Waited for the owner"),
      failing: await progress("Failed for an hour"),
    });
    await expect
      .poll(state, { timeout: 20_000, interval: 100 })
      .toEqual({ budget: "tried again", owner: "tried again", failing: "given up" });
    expect(arrivals("Failed for an hour")).toHaveLength(0);
    expect(log().match(/"outcome":"gave_up"/g)).toHaveLength(1);
  });

  it("retention deletes only what waits for the owner, CONTACT_KEEP_DAYS after it began to wait", async () => {
    // Kept 35 days, given up by this server: its 30 days start now.
    await keep("Given up now", {
      time: ago(35 * DAY),
      failedAt: new Date().toISOString(),
      failedSeconds: 3_599,
    });
    await keep("Given up long ago", { time: ago(40 * DAY), gaveUp: true, gaveUpAt: ago(31 * DAY) });
    // Held 35 days for its network's share: still to be sent, never deleted.
    await keep("Held for the network", {
      time: ago(35 * DAY),
      for: "network_share",
      upstreamStatus: 0,
    });
    await start({ CONTACT_KEEP_DAYS: "30" });

    await expect.poll(async () => (await entryOf("Given up now"))?.gaveUp, { timeout: 20_000 }).toBe(true);
    // A later pass: a message written now is due in a second and sent by a pass that tidies first.
    await keep("Later", { failedAt: new Date().toISOString() });
    await expect.poll(() => arrivals("Later").length, { timeout: 20_000, interval: 100 }).toBe(1);
    await expect.poll(() => entryOf("Later"), { timeout: 20_000, interval: 100 }).toBeNull();

    expect(await entryOf("Given up now")).not.toBeNull();
    expect(await entryOf("Given up long ago")).toBeNull();
    const heldOn =
      (await entryOf("Held for the network")) !== null || arrivals("Held for the network").length;
    expect(heldOn).toBeTruthy();
    const purged = log().match(/"outcome":"purged"[^\n]*/g) ?? [];
    expect(purged).toHaveLength(1);
    expect(purged[0]).toContain('"ageDays":31');
  });

  it("files that are not messages take no place, and a message dated in the future or not at all arrives now", async () => {
    const dir = path.join(scratch.outbox, "undelivered");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    for (let i = 0; i < 1_000; i++) await writeFile(path.join(dir, `junk-${i}.json`), "{}", { mode: 0o600 });
    // Dated 2099, its file written 31 days ago: spam held that long goes.
    await keep("Spam from 2099", { time: "2099-01-01T00:00:00.000Z", for: "suspected_spam" }, "spam");
    const monthAgo = new Date(Date.now() - 31 * DAY);
    await utimes(fileOf("spam", "Spam from 2099"), monthAgo, monthAgo);
    // No time at all: still a message, sent like any other.
    await keep("Timeless", { for: "day_limit", upstreamStatus: 0 });
    const timeless = JSON.parse(await readFile(fileOf("undelivered", "Timeless"), "utf8"));
    delete timeless.time;
    await writeFile(fileOf("undelivered", "Timeless"), JSON.stringify(timeless), { mode: 0o600 });
    scratch.fake.setMode({ kind: "status", status: 500, body: "Internal error" }, "During the outage");
    await start({ CONTACT_KEEP_DAYS: "30" });

    expect(await postFrom("198.51.100.7", "During the outage")).toBe(502);
    expect(await entryOf("During the outage")).not.toBeNull();

    await expect.poll(() => arrivals("Timeless").length, { timeout: 20_000, interval: 100 }).toBe(1);
    await expect.poll(() => entryOf("Spam from 2099", "spam"), { timeout: 20_000, interval: 100 }).toBeNull();
    expect(log()).toMatch(
      /"outcome":"purged","folder":"spam","reason":"expired","for":"suspected_spam","ageDays":31/,
    );
  });

  it("a message over its network's daily share is sent by itself on the network's next day, and counts in it", async () => {
    await start({ CONTACT_NETWORK_DAILY_LIMIT: "1", CONTACT_NETWORK_DAY_SECONDS: "10" });
    expect(await postFrom("198.51.100.1", "First of the day")).toBe(303);
    expect(arrivals("First of the day")).toHaveLength(1);
    expect(await postFrom("198.51.100.2", "Over the share")).toBe(303);
    expect(await entryOf("Over the share")).toMatchObject({
      for: "network_share",
      network: "198.51.100.0/24",
    });
    expect(arrivals("Over the share")).toHaveLength(0);

    await expect.poll(() => arrivals("Over the share").length, { timeout: 30_000, interval: 100 }).toBe(1);
    await expect.poll(() => entryOf("Over the share"), { timeout: 20_000, interval: 100 }).toBeNull();
    // It took the new day's share: the next message from the network waits.
    expect(await postFrom("198.51.100.3", "Next of the new day")).toBe(303);
    expect(await entryOf("Next of the new day")).toMatchObject({ for: "network_share" });
  });

  it("'messages waiting' is about the provider's failures: a message held for its network neither raises it nor keeps it quiet", async () => {
    const owner = await startWebhookFake("json");
    try {
      const waitingAlerts = () =>
        owner.accepted.filter((alert) => (alert.body as { event?: string }).event === "messages_waiting");
      await start({
        CONTACT_NETWORK_DAILY_LIMIT: "1",
        CONTACT_WAITING_ALERT_MINUTES: "1",
        OWNER_ALERT_URL: owner.url,
        OWNER_ALERT_FORMAT: "json",
      });
      expect(await postFrom("198.51.100.1", "The network's one")).toBe(303);
      // Held 2 hours for that network's share, which stays used today: not waiting on the provider.
      await keep("Held for the network", {
        time: ago(2 * HOUR),
        for: "network_share",
        upstreamStatus: 0,
        network: "198.51.100.0/24",
      });
      // A pass that has seen it: a message due at once goes out.
      await keep("Pass marker", { failedAt: ago(1_000) });
      await expect.poll(() => entryOf("Pass marker"), { timeout: 20_000, interval: 100 }).toBeNull();
      expect(waitingAlerts()).toEqual([]);

      // Then an outage: 3 messages the provider has failed for 2 minutes.
      scratch.fake.setMode({ kind: "status", status: 500 }, "Outage");
      for (const n of [1, 2, 3]) {
        await keep(`Outage ${n}`, { failedAt: new Date().toISOString(), failedSeconds: 120 });
      }
      await expect.poll(() => waitingAlerts().length, { timeout: 20_000, interval: 100 }).toBe(1);
      expect(waitingAlerts()[0]!.body).toMatchObject({ count: 3 });
      expect(await entryOf("Held for the network")).not.toBeNull();
    } finally {
      await owner.close();
    }
  });

  it("a backlog drains fairly: 40 messages from 20 networks cannot put a 21st network's visitor behind them", async () => {
    const held = { for: "month_limit", upstreamStatus: 0 } as const;
    for (let i = 0; i < 40; i++) {
      const network = `203.0.${i % 20}.0/24`;
      await keep(`Flood ${i}`, { ...held, time: ago(2 * HOUR - i * 1_000), network });
    }
    await keep("Genuine visitor", { ...held, time: ago(HOUR), network: "198.51.100.0/24" });
    // The month turned: 21 mails left in it, one round's worth.
    await start({ CONTACT_MONTHLY_SEND_LIMIT: "21" });

    const delivered = () => scratch.fake.requests.filter((request) => request.status === 200);
    await expect.poll(() => delivered().length, { timeout: 30_000, interval: 100 }).toBe(21);
    expect(arrivals("Genuine visitor")).toHaveLength(1);
    const firsts = Array.from({ length: 20 }, (_, i) => arrivals(`Flood ${i}`).length);
    expect(firsts).toEqual(Array(20).fill(1));
  });
});
