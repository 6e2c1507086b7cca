// Every message a job in one queue on Redis: three production instances, each with an OUTBOX_DIR of its own
// and no folder in common, one redis-server, a fake EmailJS that answers 429 past one request a second,
// and the owner's CLI run against another instance's environment (decision 053).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { busiestSecond, startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { runOutboxCli } from "../support/outbox-cli";
import { startRedisServer, type RedisServer } from "../support/redis-server";
import { keptIn } from "../support/store";
import { until } from "../support/until";
import { startWebhookFake, type WebhookFake } from "../support/webhook-fakes";

let redis: RedisServer;
let fake: EmailJsFake;
let owner: WebhookFake;
let instances: AppServer[] = [];
const folders: string[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(() => redis?.stop());
afterEach(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  instances = [];
  await fake?.close();
  await owner?.close();
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  await redis.flush();
});

const env = (outbox: string, extra: Record<string, string> = {}) =>
  relayEnv(fake.url, {
    OUTBOX_DIR: outbox,
    TRUST_PROXY: "1",
    REDIS_URL: redis.url,
    EMAILJS_MAX_PER_SECOND: "1",
    CONTACT_RATE_LIMIT_MAX: "1000",
    CONTACT_REDELIVER_FIRST_SECONDS: "1",
    CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
    CONTACT_REDELIVER_MAX_SECONDS: "2",
    CONTACT_PROVIDER_PROBE_SECONDS: "2",
    OWNER_ALERT_URL: owner.url,
    OWNER_ALERT_FORMAT: "json",
    ...extra,
  });

const newFolder = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "queue-instance-"));
  folders.push(dir);
  return dir;
};

/** The fake, the owner's webhook and `count` instances, each on a folder of its own. */
async function start(count: number, extra: Record<string, string> = {}) {
  fake = await startEmailJsFake();
  fake.limitRate(1);
  owner = await startWebhookFake("json");
  instances = await Promise.all(
    Array.from({ length: count }, async () => startAppServer({ env: env(await newFolder(), extra) })),
  );
}

/** The owner's CLI on a folder no instance uses: what it sees comes from Redis alone. */
const cli = async (args: string[], extra: Record<string, string> = {}) =>
  runOutboxCli(args, env(await newFolder(), extra));

/** A no-JS visitor's post to one instance, from a network of its own. */
async function post(i: number, subject: string, to = i % instances.length) {
  const response = await postForm(
    `${instances[to]!.url}/?index`,
    { ...VALID, subject, message: `${VALID.message} ${subject}` },
    { ...BROWSER_HEADERS, "X-Forwarded-For": `10.${i % 250}.${Math.floor(i / 250)}.1` },
  );
  return { status: response.status, page: await response.text() };
}

const line = (stdout: string, subject: string) =>
  stdout.split("\n").find((text) => text.includes(`"${subject}"`)) ?? "";

const delivered = (subject: string) =>
  fake.requests.filter((request) => request.status === 200 && request.rawBody.includes(`"${subject}"`));

const undelivered = async () => {
  const { stdout } = await cli(["list"]);
  return Number(/(\d+) undelivered message\(s\)/.exec(stdout)?.[1]);
};

const alerts = (event: string) =>
  owner.accepted.filter((alert) => (alert.body as { event?: string }).event === event);

describe("one queue for every instance", { timeout: 240_000 }, () => {
  it("an outage keeps 15 messages across three instances; after it each is delivered once, one request a second", async () => {
    await start(3);
    fake.setMode({ kind: "status", status: 500 });
    const subjects = Array.from({ length: 15 }, (_, i) => `Backlog ${i}`);
    const answers = await Promise.all(subjects.map((subject, i) => post(i, subject)));
    expect(answers.every(({ status }) => status === 502 || status === 303)).toBe(true);
    expect(await undelivered()).toBe(15);
    // No instance keeps anything on its own disk.
    for (const dir of folders.slice(0, 3)) expect(await keptIn(dir)).toEqual([]);

    fake.setMode({ kind: "status", status: 200 });
    await until(
      () => subjects.every((subject) => delivered(subject).length > 0),
      "the backlog to drain",
      150_000,
    );
    await until(async () => (await undelivered()) === 0, "the queue to empty");
    for (const subject of subjects) expect(delivered(subject), subject).toHaveLength(1);
    expect(fake.requests.filter((request) => request.status === 429)).toEqual([]);
    expect(busiestSecond(fake.requests)).toBe(1);
  });

  it("one instance killed while draining: the others finish its work", async () => {
    await start(3);
    fake.setMode({ kind: "status", status: 500 });
    const subjects = Array.from({ length: 12 }, (_, i) => `Killed ${i}`);
    await Promise.all(subjects.map((subject, i) => post(i, subject)));
    expect(await undelivered()).toBe(12);
    fake.setMode({ kind: "status", status: 200, delayMs: 300 });
    await until(() => fake.requests.some((request) => request.status === 200), "the drain to begin");
    instances[0]!.child.kill("SIGKILL");
    await until(
      () => subjects.every((subject) => delivered(subject).length > 0),
      "the others to finish",
      120_000,
    );
    // Only a message whose request may have reached the provider when its instance died may go twice.
    const twice = subjects.filter((subject) => delivered(subject).length > 1);
    expect(twice.length).toBeLessThanOrEqual(1);
  });

  it("Redis restarted during an outage loses no message (append-only file)", async () => {
    await start(2);
    fake.setMode({ kind: "status", status: 500 });
    const subjects = Array.from({ length: 6 }, (_, i) => `Restart ${i}`);
    await Promise.all(subjects.map((subject, i) => post(i, subject)));
    expect(await undelivered()).toBe(6);
    await redis.stop();
    await redis.start();
    fake.setMode({ kind: "status", status: 200 });
    await until(
      () => subjects.every((subject) => delivered(subject).length > 0),
      "the kept messages",
      120_000,
    );
    for (const subject of subjects) expect(delivered(subject)).toHaveLength(1);
  });

  // The 412 of a lost Gmail grant is the account's too: on both engines in queue-contract.test.ts.
  it("a provider answering 403 for good: one alert, probes one at a time, nothing given up; the fix, then resend from another instance", async () => {
    const [code, words, hint] = [403, "API calls are disabled for non-browser applications", /non-browser/];
    await start(2);
    fake.setMode({ kind: "status", status: code, body: words });
    for (let i = 0; i < 4; i++) expect((await post(i, `Refused ${i}`)).status).toBe(503);
    await until(() => alerts("provider_refusing").length === 1, "the owner's refusing alert");
    expect(JSON.stringify(owner.accepted[0]!.body)).toMatch(hint);
    await until(() => fake.requests.length >= 4, "probes", 60_000);
    expect(busiestSecond(fake.requests)).toBe(1);
    const listed = await cli(["list"]);
    expect(listed.stdout).toContain("4 undelivered message(s)");
    expect(listed.stdout).not.toContain("given up");
    expect(alerts("provider_refusing")).toHaveLength(1);
    // The owner's test meets the same refusal once, says it with the fix, and is never mailed later. On a
    // starved machine it may find no free slot within its wait and say so: the owner then asks again.
    let tested = await cli(["test"]);
    for (let again = 0; again < 2 && tested.stdout.includes("waiting: pace"); again++)
      tested = await cli(["test"]);
    expect(tested.code).toBe(1);
    expect(tested.stdout).toContain(words);
    expect(tested.stdout).toMatch(hint);

    fake.setMode({ kind: "status", status: 200 });
    const resent = await cli(["resend"]);
    expect(resent.stdout).toMatch(/sent/);
    await until(async () => (await undelivered()) === 0, "the kept messages to go out", 60_000);
    for (let i = 0; i < 4; i++) expect(delivered(`Refused ${i}`)).toHaveLength(1);
    await until(() => alerts("provider_back").length === 1, "the owner's back alert");
    // Told from the queue: the others still waited when the first went through.
    expect((alerts("provider_back")[0]!.body as { waiting: number }).waiting).toBeGreaterThan(0);
    expect(alerts("provider_refusing")).toHaveLength(1);
    expect(delivered("Test message from outbox test")).toEqual([]);
  });

  it("the daily limit counts mails across instances; the rest wait for the next day, not given up", async () => {
    await start(3, { CONTACT_DAILY_SEND_LIMIT: "4" });
    for (let i = 0; i < 6; i++) expect((await post(i, `Daily ${i}`)).status).toBe(303);
    await until(() => fake.requests.length >= 4, "four mails");
    let stdout = "";
    await until(async () => {
      stdout = (await cli(["list"])).stdout;
      return stdout.match(/waiting: day limit/g)?.length === 2;
    }, "both others to wait for the next day");
    expect(stdout).toContain("2 undelivered message(s)");
    expect(fake.requests.filter((request) => request.status === 200)).toHaveLength(4);
    const status = await cli(["status"], { CONTACT_DAILY_SEND_LIMIT: "4" });
    expect(status.stdout, status.stderr).toMatch(/sent today\s+4 of 4/);
  });

  it("a message over its network's share waits for that network's next day and is then sent by itself", async () => {
    await start(2, { CONTACT_NETWORK_DAILY_LIMIT: "1" });
    const response = (subject: string) =>
      postForm(
        `${instances[0]!.url}/?index`,
        { ...VALID, subject, message: `${VALID.message} ${subject}` },
        { ...BROWSER_HEADERS, "X-Forwarded-For": "10.9.9.1" },
      );
    expect((await response("Share 1")).status).toBe(303);
    expect((await response("Share 2")).status).toBe(303);
    await until(() => delivered("Share 1").length === 1, "the first");
    // The second is taken after the pace's next slot, then scheduled: wait for that state, not a moment.
    let stdout = "";
    await until(async () => {
      stdout = (await cli(["list"])).stdout;
      return /Share 2.*waiting: network share.*next attempt/.test(stdout);
    }, "the second to wait for its network's share");
    // Scheduled for when the network's share frees (its next day), not given up, not kept for the owner.
    const next = Date.parse(/Share 2.*next attempt (\S+?),/.exec(stdout)![1]!);
    expect(next - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(next - Date.now()).toBeLessThan(25 * 3_600_000);
    // That day, brought forward: the share is free again and the message goes by itself.
    const admin = new Redis(redis.url);
    for (const key of await admin.keys("portfolio:contact-mailed-network*")) await admin.del(key);
    admin.disconnect();
    expect((await cli(["resend"])).code).toBe(0);
    await until(() => delivered("Share 2").length === 1, "the second, on its network's next day");
  });

  it("when the month turns, the backlog drains one message per network per round: a genuine visitor is in the first", async () => {
    // A short month, begun with time enough to spend its budget and fill the backlog (a few seconds).
    const monthMs = 15_000;
    await start(2, {
      EMAILJS_MAX_PER_SECOND: "20",
      CONTACT_MONTHLY_SEND_LIMIT: "11",
      CONTACT_MONTH_SECONDS: String(monthMs / 1_000),
    });
    fake.limitRate(null);
    const month = () => Math.floor(Date.now() / monthMs);
    const left = () => monthMs - (Date.now() % monthMs);
    if (left() < 10_000) await until(() => left() > 10_000, "a new month", 20_000);
    const began = month();
    const from = (network: string, subject: string) =>
      postForm(
        `${instances[0]!.url}/?index`,
        { ...VALID, subject, message: `${VALID.message} ${subject}` },
        { ...BROWSER_HEADERS, "X-Forwarded-For": `${network}.1` },
      ).then((response) => response.status);
    const each = (count: number, post: (i: number) => Promise<number>) =>
      Promise.all(Array.from({ length: count }, (_, i) => post(i)));
    // The month's budget spent, then 10 networks keep two messages each (a round at a time), then a visitor
    // from an 11th: the next month's 11 mails are one of each network and the visitor's.
    await each(11, (i) => from(`10.200.${i}`, `Spent ${i}`));
    await until(() => fake.requests.length === 11, "the month's budget spent");
    for (let round = 0; round < 2; round++)
      expect(await each(10, (n) => from(`10.100.${n}`, `Flood ${n}-${round}`))).toEqual(Array(10).fill(303));
    expect(await from("172.16.9", "Genuine")).toBe(303);
    // Still the same month: everything above waits for the next one.
    expect(month()).toBe(began);
    await until(() => fake.requests.length === 22, "the next month's 11 mails", 40_000);
    const next = fake.requests
      .slice(11)
      .map((request) => /"(Flood \d+-\d|Genuine)"/.exec(request.rawBody)?.[1]);
    expect(next).toContain("Genuine");
    expect(next.filter((subject) => subject?.endsWith("-1"))).toEqual([]);
  });

  it("a 4xx for one message holds it for the owner with the provider's words; a third message refused alike makes it the account's", async () => {
    await start(2);
    const words = "The template variable 'reply_to' is missing";
    fake.setMode({ kind: "status", status: 400, body: words }, "Refused alone");
    fake.setMode({ kind: "status", status: 400, body: words }, "Refused too");
    fake.setMode({ kind: "status", status: 400, body: words }, "Refused third");
    // 502 when its turn comes within the visitor's wait, else 303 (it waited for its slot), and held then.
    const heldAlone = (subject: string) =>
      until(
        async () =>
          /held: refused by provider.*EmailJS said "The template variable/.test(
            line((await cli(["list"])).stdout, subject),
          ),
        `${subject} held`,
      );
    expect([502, 303]).toContain((await post(0, "Refused alone")).status);
    // Held, but not as spam: `list` shows it with the rest.
    await heldAlone("Refused alone");
    // The rest go on: the account is not refused for one message.
    expect((await post(1, "Fine after")).status).toBe(303);
    await until(() => delivered("Fine after").length === 1, "the next message, mailed");
    expect((await cli(["status"])).stdout).toMatch(/^provider\s+ok/m);
    expect(alerts("provider_refusing")).toEqual([]);

    // A second alike is still held for itself: two refused messages are not yet the account's.
    expect([502, 303]).toContain((await post(2, "Refused too")).status);
    await heldAlone("Refused too");
    expect(alerts("provider_refusing")).toEqual([]);
    // 503 when its turn came within the visitor's wait, else answered from its kept state (303).
    expect([503, 303]).toContain((await post(3, "Refused third")).status);
    await until(() => alerts("provider_refusing").length === 1, "the account's refusal");
    expect(line((await cli(["list"])).stdout, "Refused third")).toContain("waiting: account");
    expect(JSON.stringify(alerts("provider_refusing")[0]!.body)).toContain("template variable");
  });

  it("a suspected spam kept by one instance is released from another's CLI and sent once", async () => {
    await start(2);
    const spammy = { ...VALID, name: "https://spam.example", subject: "Maybe spam" };
    const message = "Go to https://bit.ly/abc or https://x.example";
    const posted = await postForm(`${instances[0]!.url}/?index`, { ...spammy, message }, BROWSER_HEADERS);
    expect(posted.status).toBe(303);
    const listed = await cli(["spam", "list"]);
    expect(listed.stdout).toContain("1 suspected spam message(s)");
    expect(fake.requests).toHaveLength(0);
    const id = /([0-9a-f]{32})\s*$/m.exec(listed.stdout)![1]!;
    const released = await cli(["spam", "release", id]);
    expect(released.stdout).toMatch(/released/);
    await until(() => delivered("Maybe spam").length === 1, "the released message");
    expect((await cli(["spam", "list"])).stdout).toContain("0 suspected spam message(s)");
    expect(delivered("Maybe spam")).toHaveLength(1);
  });
});
