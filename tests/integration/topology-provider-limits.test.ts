// The relay within the provider's real limits, on the wire: two production replicas sharing one outbox
// folder and one redis-server, a fake EmailJS that answers 429 past one request a second and can refuse
// the account for good, and a fake of the owner's webhook (decisions 045-048).
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OUTCOME_TEXT } from "~/contact/contract";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { busiestSecond, startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { runOutboxCli } from "../support/outbox-cli";
import { startRedisServer, type RedisServer } from "../support/redis-server";
import { until } from "../support/until";
import { startWebhookFake, type WebhookFake } from "../support/webhook-fakes";

let redis: RedisServer;
let fake: EmailJsFake;
let owner: WebhookFake;
let outbox: string;
let replicas: AppServer[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(() => redis?.stop());
afterEach(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await fake?.close();
  await owner?.close();
  await rm(outbox, { recursive: true, force: true });
  // Each test starts with no client's allowances used.
  const admin = new Redis(redis.url);
  await admin.flushall();
  admin.disconnect();
});

const env = (extra: Record<string, string> = {}) =>
  relayEnv(fake.url, {
    OUTBOX_DIR: outbox,
    TRUST_PROXY: "1",
    REDIS_URL: redis.url,
    EMAILJS_MAX_PER_SECOND: "1",
    CONTACT_DAILY_SEND_LIMIT: "100",
    CONTACT_MONTHLY_SEND_LIMIT: "200",
    CONTACT_RATE_LIMIT_MAX: "1000",
    CONTACT_REDELIVER_FIRST_SECONDS: "1",
    CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
    CONTACT_REDELIVER_MAX_SECONDS: "1",
    CONTACT_PROVIDER_PROBE_SECONDS: "2",
    OWNER_ALERT_URL: owner.url,
    OWNER_ALERT_FORMAT: "json",
    ...extra,
  });

async function start(extra: Record<string, string> = {}) {
  fake = await startEmailJsFake();
  fake.limitRate(1);
  owner = await startWebhookFake("json");
  outbox = await mkdtemp(path.join(tmpdir(), "provider-limits-"));
  replicas = await Promise.all([startAppServer({ env: env(extra) }), startAppServer({ env: env(extra) })]);
}

/** A no-JS visitor's post to one replica from a network of its own; the status and the page. */
async function post(i: number, subject: string) {
  const response = await postForm(
    `${replicas[i % 2]!.url}/?index`,
    { ...VALID, subject, message: `${VALID.message} ${subject}` },
    { ...BROWSER_HEADERS, "X-Forwarded-For": `10.${i % 250}.${Math.floor(i / 250)}.1` },
  );
  return { status: response.status, page: await response.text() };
}

const kept = async () => {
  try {
    return (await readdir(path.join(outbox, "undelivered"))).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
};

const delivered = (subject: string) =>
  fake.requests.filter((request) => request.status === 200 && request.rawBody.includes(`"${subject}"`));

const alerts = (event: string) =>
  owner.accepted.filter((alert) => (alert.body as { event?: string }).event === event);

async function status() {
  const run = await runOutboxCli(["status"], env());
  const month = /this month\s+(\d+) of (\d+)/.exec(run.stdout);
  return { ...run, monthUsed: Number(month?.[1]) };
}

describe("the provider's limits", { timeout: 180_000 }, () => {
  it("outage then recovery with 50 kept messages: each delivered once, one request a second, units = mails", async () => {
    await start();
    fake.setMode({ kind: "status", status: 500 });
    const subjects = Array.from({ length: 50 }, (_, i) => `Backlog ${i}`);
    const answers = await Promise.all(subjects.map((subject, i) => post(i, subject)));
    // Tried and failed (502, the saved text), or held for the rate (the success page): every one kept.
    expect(answers.every(({ status }) => status === 502 || status === 303)).toBe(true);
    expect(await kept()).toHaveLength(50);

    fake.setMode({ kind: "status", status: 200 });
    await until(async () => (await kept()).length === 0, "the backlog to drain", 150_000);
    for (const subject of subjects) expect(delivered(subject), subject).toHaveLength(1);
    expect(fake.requests.filter((request) => request.status === 429)).toEqual([]);
    expect(busiestSecond(fake.requests)).toBe(1);
    expect((await status()).monthUsed).toBe(50);
  });

  it("after a shortened outage with 5 kept messages, the next visitor is mailed, not held over the budget", async () => {
    await start({ CONTACT_DAILY_SEND_LIMIT: "7" });
    fake.setMode({ kind: "status", status: 500 });
    for (let i = 0; i < 5; i++) expect((await post(i, `Outage ${i}`)).status).toBe(502);
    // Every message is tried again and again while the outage lasts.
    await until(() => fake.requests.length >= 25, "25 attempts during the outage", 60_000);
    fake.setMode({ kind: "status", status: 200 });
    await until(async () => (await kept()).length === 0, "the kept messages to go out", 60_000);

    expect((await post(9, "After the outage")).status).toBe(303);
    expect(delivered("After the outage")).toHaveLength(1);
    expect(await kept()).toEqual([]);
    expect((await status()).monthUsed).toBe(6);
  });

  it.each([
    [403, "API calls are disabled for non-browser applications", /non-browser applications/],
    [412, "Gmail_API: Invalid grant. Please reconnect your Gmail account", /reconnect the email service/],
  ])(
    "a provider answering %i for good: one alert with the fix, nothing given up, each sent once when it is back",
    async (code, words, hint) => {
      await start();
      fake.setMode({ kind: "status", status: code, body: words });
      const first = await post(0, "Refused 0");
      expect(first.status).toBe(503);
      // The spec's text first, then what became of the message.
      const spec = first.page.indexOf(OUTCOME_TEXT.failed.description);
      expect(spec).toBeGreaterThan(-1);
      expect(first.page.indexOf("Your message is saved and will be sent")).toBeGreaterThan(spec);
      for (let i = 1; i < 4; i++) expect((await post(i, `Refused ${i}`)).status).toBe(503);
      expect(await kept()).toHaveLength(4);

      await until(() => alerts("provider_refusing").length === 1, "the owner's refusing alert");
      expect(JSON.stringify(owner.accepted[0]!.body)).toMatch(hint);
      // Probes, one at a time, and nothing given up meanwhile.
      await until(() => fake.requests.length >= 3, "two probes", 30_000);
      const refusing = await status();
      expect(refusing.code).toBe(1);
      expect(refusing.stdout).toContain(words);
      expect(refusing.stdout).toMatch(hint);
      expect((await runOutboxCli(["list"], env())).stdout).not.toContain("given up");
      expect(alerts("provider_refusing")).toHaveLength(1);
      expect(busiestSecond(fake.requests)).toBe(1);

      fake.setMode({ kind: "status", status: 200 });
      await until(async () => (await kept()).length === 0, "the kept messages to go out", 60_000);
      for (let i = 0; i < 4; i++) expect(delivered(`Refused ${i}`)).toHaveLength(1);
      await until(() => alerts("provider_back").length === 1, "the owner's back alert");
      expect(alerts("provider_refusing")).toHaveLength(1);
      expect((await status()).code).toBe(0);
    },
  );

  it("the monthly limit: kept past it, alerts at 80% and 100%, sent when the shortened month turns", async () => {
    const monthSeconds = 30;
    await start({ CONTACT_MONTHLY_SEND_LIMIT: "5", CONTACT_MONTH_SECONDS: String(monthSeconds) });
    // Start just after a month begins, so the seven posts fall in one.
    const intoMonth = Date.now() % (monthSeconds * 1_000);
    await until(() => Date.now() % (monthSeconds * 1_000) < intoMonth, "a new month", 40_000);
    for (let i = 0; i < 7; i++) expect((await post(i, `Monthly ${i}`)).status).toBe(303);
    expect(fake.requests).toHaveLength(5);
    expect(await kept()).toHaveLength(2);
    await until(() => alerts("quota").length === 2, "the quota alerts");
    const percents = alerts("quota").map((alert) => (alert.body as { percent: number }).percent);
    expect(percents.sort((a, b) => a - b)).toEqual([80, 100]);

    await until(async () => (await kept()).length === 0, "the next month", 60_000);
    for (let i = 0; i < 7; i++) expect(delivered(`Monthly ${i}`)).toHaveLength(1);
  });
});
