// What the owner sees and keeps: `outbox status` and `outbox test` run as the owner runs them, the waiting
// and spam alerts, and personal data deleted after CONTACT_KEEP_DAYS, nothing younger touched (decision 048),
// on the real SQLite file in OUTBOX_DIR.
import { afterEach, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { VALID, relayEnv } from "../support/contact";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { runOutboxCli } from "../support/outbox-cli";
import { keep, keptIn } from "../support/store";
import { until } from "../support/until";
import { startWebhookFake, type WebhookFake } from "../support/webhook-fakes";

const scratch = useFakeAndOutbox("contact-owner-");
const env = (extra: Record<string, string> = {}) =>
  relayEnv(scratch.fake.url, { OUTBOX_DIR: scratch.outbox, ...extra });
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("retention and alerts, by the server's own loop", () => {
  let server: AppServer | undefined;
  let owner: WebhookFake | undefined;
  afterEach(async () => {
    await server?.stop();
    await owner?.close();
    server = owner = undefined;
  });

  it("deletes spam and given-up messages older than CONTACT_KEEP_DAYS, logged without their text, nothing younger; tells the owner once, across a restart", async () => {
    // Not due for days: the loop has nothing to send, only what to delete and tell.
    const later = Date.now() + 10 * DAY;
    await keep(scratch.outbox, "Old spam", { spam: true, ageMs: 31 * DAY });
    const youngSpam = await keep(scratch.outbox, "Young spam", { spam: true, ageMs: 29 * DAY });
    await keep(scratch.outbox, "Old given up", { ageMs: 31 * DAY, state: "given_up", nextAttempt: null });
    const youngGivenUp = await keep(scratch.outbox, "Young given up", {
      ageMs: 29 * DAY,
      state: "given_up",
      nextAttempt: null,
    });
    // Still waiting to be sent: never deleted, however old.
    const oldWaiting = await keep(scratch.outbox, "Old but waiting", {
      ageMs: 40 * DAY,
      for: "month_limit",
      nextAttempt: later,
    });
    // Failing for two hours, past the alert's hour; and spam of the last day, for the digest.
    const failing = await keep(scratch.outbox, "Failing for two hours", {
      ageMs: 2 * HOUR,
      nextAttempt: later,
    });
    const freshSpam = await keep(scratch.outbox, "Fresh spam", { spam: true, ageMs: HOUR });

    owner = await startWebhookFake("json");
    const serverEnv = env({
      CONTACT_KEEP_DAYS: "30",
      CONTACT_WAITING_ALERT_MINUTES: "60",
      OWNER_ALERT_URL: owner.url,
      OWNER_ALERT_FORMAT: "json",
    });
    server = await startAppServer({ env: serverEnv });
    // The alerts follow the deletions in the same pass.
    await until(() => owner!.accepted.length === 2, "the owner's alerts after the first pass");
    // Its stop waits for the pass and the alerts in flight: a clean exit is the whole pass done.
    expect(await server.stop()).toBe(0);

    const ids = (await keptIn(scratch.outbox)).map((message) => message.id).sort();
    expect(ids).toEqual([youngSpam, youngGivenUp, oldWaiting, failing, freshSpam].sort());
    const purged = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"outcome":"purged"'))
      .map((line) => {
        const { time: _, ...fields } = JSON.parse(line) as Record<string, unknown>;
        return fields;
      });
    expect(purged).toEqual([
      { event: "contact", outcome: "purged", for: "suspected_spam", reason: "expired", ageDays: 31 },
      { event: "contact", outcome: "purged", for: "provider", reason: "expired", ageDays: 31 },
    ]);
    expect(server.output()).not.toMatch(/Old spam|Old given up|ada@example|analytical engine/);

    const told = owner.accepted.map(({ body }) => body as Record<string, unknown>);
    expect(told).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: "messages_waiting", count: 1, oldestHours: 2 }),
        expect.objectContaining({ event: "spam_digest", count: 1 }),
      ]),
    );
    expect(JSON.stringify(told)).not.toMatch(/ada@example|Failing for two hours|Fresh spam/);

    // The alerts' ledger is in the file: a restarted server does not tell them again.
    server = await startAppServer({ env: serverEnv });
    expect(await server.stop()).toBe(0);
    expect(owner.accepted).toHaveLength(2);
    expect(server.output()).not.toContain('"outcome":"purged"');
    expect(await keptIn(scratch.outbox)).toHaveLength(5);
    expect(scratch.fake.requests).toHaveLength(0);
  });
});

describe("outbox status and outbox test", () => {
  it("status: one screen, exit 0 when nothing needs the owner", async () => {
    await keep(scratch.outbox, "Some spam", { spam: true, ageMs: 0.5 * DAY });
    const run = await runOutboxCli(
      ["status"],
      env({ CONTACT_DAILY_SEND_LIMIT: "100", CONTACT_MONTHLY_SEND_LIMIT: "200" }),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^provider {4}ok$/m);
    expect(run.stdout).toMatch(/^waiting {5}none$/m);
    expect(run.stdout).toMatch(/^spam held {3}1 message\(s\), 1 in the last 24 h$/m);
    expect(run.stdout).toMatch(/^sent today {2}0 of 100 \(100 left, turns \d{4}-/m);
    expect(run.stdout).toMatch(/^this month {2}0 of 200 \(200 left, turns \d{4}-/m);
    expect(run.stdout).toMatch(/^last alert {2}none \(OWNER_ALERT_URL is not set\)$/m);
    expect(run.stdout).not.toContain("ada@example.com");
  });

  it("status: a long wait for the budget needs nobody; the provider failing past the alert's time does (exit 1)", async () => {
    await keep(scratch.outbox, "Held for the month", {
      ageMs: 40 * DAY,
      for: "month_limit",
      attempts: 0,
      nextAttempt: Date.now() + DAY,
    });
    const waiting = await runOutboxCli(["status"], env({ CONTACT_WAITING_ALERT_MINUTES: "60" }));
    expect(waiting.stdout).toMatch(/^waiting {5}1 message\(s\)/m);
    expect(waiting.code).toBe(0);
    await keep(scratch.outbox, "Failing for two hours", { ageMs: 2 * HOUR });
    const failing = await runOutboxCli(["status"], env({ CONTACT_WAITING_ALERT_MINUTES: "60" }));
    expect(failing.stdout).toMatch(/^waiting {5}2 message\(s\)/m);
    expect(failing.code).toBe(1);
  });

  it("test: one message through the real provider, its answer printed; a refusal prints the fix and exits 1", async () => {
    const sent = await runOutboxCli(["test"], env());
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain("sent: EmailJS took it");
    expect(scratch.fake.requests).toHaveLength(1);
    expect(JSON.stringify(scratch.fake.requests[0]!.body)).toContain("Test message from outbox test");
    expect((await runOutboxCli(["status"], env())).stdout).toMatch(/^this month {2}1 of /m);

    scratch.fake.setMode({
      kind: "status",
      status: 403,
      body: "API calls are disabled for non-browser applications",
    });
    const refused = await runOutboxCli(["test"], env());
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('EmailJS said "API calls are disabled for non-browser applications"');
    expect(refused.stdout).toContain("fix: enable API for non-browser applications");
    const status = await runOutboxCli(["status"], env());
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/^provider {4}refusing since .*: 403 "API calls are disabled/m);
    // A refused test spends nothing.
    expect(status.stdout).toMatch(/^this month {2}1 of /m);

    const outboxMode = await runOutboxCli(["test"], { OUTBOX_DIR: scratch.outbox });
    expect(outboxMode.code).toBe(2);
    expect(outboxMode.stderr).toContain("test needs the EmailJS ids");
  });

  it("export prints a kept message whole as JSON; a path is refused", async () => {
    const id = await keep(scratch.outbox, "Export me", { spam: true, ageMs: DAY });
    const run = await runOutboxCli(["export", id], env());
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id,
      state: "held",
      for: "suspected_spam",
      params: { subject: "Export me", message: VALID.message, from_email: VALID.email },
    });
    expect((await runOutboxCli(["export", `../spam/${id}`], env())).code).toBe(2);
    expect((await runOutboxCli(["export", "missing.json"], env())).code).toBe(1);
  });
});
