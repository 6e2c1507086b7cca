// When the relay sends, on the wire: a production server and the fake EmailJS, on the SQLite store or on
// PostgreSQL. A visitor right after another waits for the slot and hears EmailJS's answer; a wait for a turn at
// the provider's pace never eats a send's deadline; a Retry-After past the cap holds sending for the cap only,
// told to the owner and shown by `outbox status` and `outbox test` (decisions 050, 063).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { runOutboxCli } from "../support/outbox-cli";
import { freshDatabase } from "../support/postgres-server";
import { until } from "../support/until";
import { startWebhookFake, type WebhookFake } from "../support/webhook-fakes";

let fake: EmailJsFake;
let owner: WebhookFake;
let outbox: string;
let replica: AppServer | undefined;
let database: string | null = null;

afterEach(async () => {
  await replica?.stop();
  await fake?.close();
  await owner?.close();
  await rm(outbox, { recursive: true, force: true });
});

const env = () =>
  relayEnv(fake.url, {
    OUTBOX_DIR: outbox,
    TRUST_PROXY: "1",
    ...(database ? { DATABASE_URL: database } : {}),
    EMAILJS_MAX_PER_SECOND: "1",
    CONTACT_REDELIVER_FIRST_SECONDS: "1",
    CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
    CONTACT_REDELIVER_MAX_SECONDS: "1",
    OWNER_ALERT_URL: owner.url,
    OWNER_ALERT_FORMAT: "json",
  });

async function start(store: "sqlite" | "postgres") {
  database = store === "postgres" ? await freshDatabase() : null;
  fake = await startEmailJsFake();
  owner = await startWebhookFake("json");
  outbox = await mkdtemp(path.join(tmpdir(), "send-timing-"));
  replica = await startAppServer({ env: env() });
}

async function post(subject: string, client: string) {
  const response = await postForm(
    `${replica!.url}/?index`,
    { ...VALID, subject, message: `${VALID.message} ${subject}` },
    { ...BROWSER_HEADERS, "X-Forwarded-For": client },
  );
  return { status: response.status, page: await response.text() };
}

/** What waits, as the owner's CLI counts it on either engine. */
const kept = async () =>
  Number(/(\d+) undelivered message\(s\)/.exec((await runOutboxCli(["list"], env())).stdout)?.[1]);

const arrivals = (subject: string) =>
  fake.requests.filter((request) => request.rawBody.includes(`"${subject}"`));

/** The replica's contact log lines with this outcome. */
const logged = (outcome: string) =>
  replica!
    .output()
    .split("\n")
    .filter((line) => line.includes(`"outcome":"${outcome}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const alerts = (event: string) =>
  owner.accepted.filter((alert) => (alert.body as { event?: string }).event === event);

describe("when the relay sends", { timeout: 180_000 }, () => {
  it.each(["sqlite", "postgres"] as const)(
    "a visitor posting right after another hears EmailJS's 401, not Message Sent! (%s)",
    async (store) => {
      await start(store);
      fake.setMode({ kind: "status", status: 401, body: "The Public Key is invalid" }, "Right after");
      expect((await post("First of two", "203.0.113.61")).status).toBe(303);
      const second = await post("Right after", "203.0.113.62");
      expect([502, 503]).toContain(second.status);
      expect(second.page).toContain("Right after");
      expect(arrivals("Right after")).toHaveLength(1);
      expect(logged("relayed").map((line) => line.upstreamStatus)).toEqual([200, 401]);
    },
  );

  it("a redelivery that waited longer than the deadline for its turn is sent whole: once, never uncertain", async () => {
    await start("sqlite");
    // A 429 asking for 15 s (under the cap) holds the pace past the 10 s deadline; then a slow 200.
    fake.queue({ kind: "status", status: 429, headers: { "Retry-After": "15" } });
    fake.setMode({ kind: "status", status: 200, body: "OK", delayMs: 500 });
    expect((await post("Waited its turn", "203.0.113.1")).status).toBe(502);
    expect(await kept()).toBe(1);

    await until(async () => (await kept()) === 0, "the kept message to go out", 90_000);
    expect(arrivals("Waited its turn").map((request) => request.status)).toEqual([429, 200]);
    expect(
      logged("relayed").map(({ ok, upstreamStatus, attempts }) => [ok, upstreamStatus, attempts]),
    ).toEqual([
      [false, 429, 1],
      [true, 200, 1],
    ]);
    // Its second try (the visitor's was the first), not marked as maybe sent twice.
    expect(logged("redelivered")).toEqual([expect.objectContaining({ attempts: 2, uncertain: false })]);
    const status = await runOutboxCli(["status"], env());
    expect(status.stdout).toMatch(/this month\s+1 of/);
  });

  it("a Retry-After of a day holds sending for the cap only, and the owner is told once", async () => {
    await start("postgres");
    fake.queue({ kind: "status", status: 429, headers: { "Retry-After": "86400" } });
    // The first hears EmailJS's 429 and is kept; the next waits for the pause, told its message is on its way.
    expect((await post("Asked a day", "203.0.113.2")).status).toBe(502);
    expect((await post("Sent later", "203.0.113.3")).status).toBe(303);
    expect(await kept()).toBe(2);

    await until(async () => (await kept()) === 0, "both messages to go out after the cap", 120_000);
    for (const subject of ["Asked a day", "Sent later"]) {
      expect(arrivals(subject).filter((request) => request.status === 200)).toHaveLength(1);
    }
    await until(() => alerts("provider_pause").length === 1, "the owner's pause alert");
    const alert = alerts("provider_pause")[0]!.body as Record<string, unknown>;
    expect(alert).toMatchObject({ status: 429, askedMs: 86_400_000 });
    expect(alert.title).toBe("Contact form: EmailJS asks to wait 24 hours");
    expect(alert.text).toMatch(/sending is held until \S+, 60 seconds at most, then tried again/);
    expect(logged("provider_pause")).toEqual([
      expect.objectContaining({ upstreamStatus: 429, askedMs: 86_400_000, pausedMs: 60_000 }),
    ]);
    // A message went through: the pause is over.
    expect((await runOutboxCli(["status"], env())).stdout).not.toMatch(/^paused/m);
    expect(alerts("provider_pause")).toHaveLength(1);
  });

  it("while a pause asked past the cap holds, `outbox status` and `outbox test` say so in words", async () => {
    await start("postgres");
    fake.queue({ kind: "status", status: 429, headers: { "Retry-After": "Fri, 01 Jan 2100 00:00:00 GMT" } });
    expect((await post("Asked for decades", "203.0.113.4")).status).toBe(502);
    await until(() => alerts("provider_pause").length === 1, "the owner's pause alert");

    const status = await runOutboxCli(["status"], env());
    expect(status.stdout).toMatch(
      /^paused {6}EmailJS asked at \S+ to wait \d+ years \(until 2100-01-01T00:00:00Z\); sending is held until \S+, 60 seconds at most, then tried again$/m,
    );

    // The test message waits its turn behind the pause, longer than the CLI waits for it.
    const test = await runOutboxCli(["test"], env());
    expect(test.code).toBe(1);
    expect(test.stdout).toMatch(/^not sent \(waiting: pace\)/);
    expect(test.stdout).toMatch(/EmailJS asked at \S+ to wait \d+ years \(until 2100-01-01T00:00:00Z\)/);
  });
});
