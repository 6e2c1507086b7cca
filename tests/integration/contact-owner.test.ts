// What the owner sees and keeps: `outbox status` and `outbox test` run as the owner runs them, the waiting
// and spam alerts, and personal data deleted after CONTACT_KEEP_DAYS, nothing younger touched (decision 048).
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { OwnerAlert } from "~/contact/alerts.server";
import { tidyAndReport } from "~/contact/housekeeping.server";
import { folderState } from "~/contact/shared-state.server";
import { undeliveredFileName, type UndeliveredEntry } from "~/contact/store.server";
import type { ContactEvent } from "~/contact/events.server";
import { VALID_TEMPLATE_PARAMS, relayEnv, testConfig } from "../support/contact";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { runOutboxCli } from "../support/outbox-cli";

const scratch = useFakeAndOutbox("contact-owner-");
const env = (extra: Record<string, string> = {}) =>
  relayEnv(scratch.fake.url, { OUTBOX_DIR: scratch.outbox, ...extra });
const DAY = 86_400_000;

/** A kept message `days` old in `folder`, written as the server writes one. */
async function keepOld(
  folder: "spam" | "undelivered",
  subject: string,
  days: number,
  extra: Partial<UndeliveredEntry> = {},
) {
  const dir = path.join(scratch.outbox, folder);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const params = { ...VALID_TEMPLATE_PARAMS, subject };
  const entry: UndeliveredEntry = {
    lib_version: "4.4.1",
    template_params: params,
    time: new Date(Date.now() - days * DAY).toISOString(),
    for: folder === "spam" ? "suspected_spam" : "provider",
    ...(folder === "spam" ? {} : { failure: "upstream_error" as const }),
    upstreamStatus: folder === "spam" ? 0 : 500,
    uncertain: false,
    ...extra,
  };
  const name = undeliveredFileName(params);
  await writeFile(path.join(dir, name), JSON.stringify(entry), { mode: 0o600 });
  return name;
}

const files = async (folder: string) => (await readdir(path.join(scratch.outbox, folder))).sort();

describe("retention", () => {
  it("deletes spam and given-up messages older than CONTACT_KEEP_DAYS, logged without their text; nothing younger", async () => {
    const oldSpam = await keepOld("spam", "Old spam", 31);
    const youngSpam = await keepOld("spam", "Young spam", 29);
    const oldGivenUp = await keepOld("undelivered", "Old given up", 31, { gaveUp: true });
    const youngGivenUp = await keepOld("undelivered", "Young given up", 29, { gaveUp: true });
    // Still waiting to be sent: never deleted, however old.
    const oldWaiting = await keepOld("undelivered", "Old but waiting", 40, { for: "month_limit" });
    const events: ContactEvent[] = [];
    const told: OwnerAlert[] = [];
    const config = testConfig(env({ CONTACT_KEEP_DAYS: "30" }));

    await tidyAndReport(
      config,
      folderState(config.mail.stateDir),
      (alert) => told.push(alert),
      (event) => events.push(event),
    );

    expect(await files("spam")).toEqual([youngSpam]);
    expect(await files("undelivered")).toEqual([youngGivenUp, oldWaiting].sort());
    expect(events).toEqual([
      { outcome: "purged", folder: "spam", reason: "expired", for: "suspected_spam", ageDays: 31 },
      { outcome: "purged", folder: "undelivered", reason: "expired", for: "provider", ageDays: 31 },
    ]);
    expect(JSON.stringify(events)).not.toMatch(/Old spam|Old given up|ada@example/);
    expect([oldSpam, oldGivenUp]).not.toContain(youngSpam);
  });

  it("tells the owner once that a message waits too long, and sends one spam digest a day", async () => {
    await keepOld("undelivered", "Waiting long", 0.1, { failedSeconds: 0.1 * 86_400 });
    await keepOld("spam", "Fresh spam", 0.01);
    const told: OwnerAlert[] = [];
    const config = testConfig(env({ CONTACT_WAITING_ALERT_MINUTES: "60" }));
    for (let pass = 0; pass < 3; pass++)
      await tidyAndReport(
        config,
        folderState(config.mail.stateDir),
        (alert) => told.push(alert),
        () => {},
      );
    expect(told).toEqual([
      { kind: "messages_waiting", count: 1, oldestHours: 2 },
      { kind: "spam_digest", count: 1, day: new Date().toISOString().slice(0, 10) },
    ]);
    expect(JSON.stringify(told)).not.toMatch(/ada@example|Waiting long|Fresh spam/);
  });
});

describe("outbox status and outbox test", () => {
  it("status: one screen, exit 0 when nothing needs the owner", async () => {
    await keepOld("spam", "Some spam", 0.5);
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
    await keepOld("undelivered", "Held for the month", 40, {
      for: "month_limit",
      upstreamStatus: 0,
    });
    const waiting = await runOutboxCli(["status"], env({ CONTACT_WAITING_ALERT_MINUTES: "60" }));
    expect(waiting.stdout).toMatch(/^waiting {5}1 message\(s\)/m);
    expect(waiting.code).toBe(0);
    await keepOld("undelivered", "Failing for two hours", 0.1, {
      failedAt: new Date(Date.now() - 60_000).toISOString(),
      failedSeconds: 2 * 3_600,
    });
    expect((await runOutboxCli(["status"], env({ CONTACT_WAITING_ALERT_MINUTES: "60" }))).code).toBe(1);
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
    const name = await keepOld("spam", "Export me", 1);
    const run = await runOutboxCli(["export", name], env());
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: "held", params: { subject: "Export me" } });
    expect((await runOutboxCli(["export", `../spam/${name}`], env())).code).toBe(2);
    expect((await runOutboxCli(["export", "missing.json"], env())).code).toBe(1);
  });
});
