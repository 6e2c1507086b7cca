// One contract, both stores: the production server on the SQLite file in OUTBOX_DIR and on a PostgreSQL
// database (DATABASE_URL, a fresh one for each test), driven the same way (a visitor's post, the fake EmailJS,
// the owner's CLI), held to the same outcomes (decisions 057, 063).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { postSubject, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { runOutboxCli } from "../support/outbox-cli";
import { freshDatabase } from "../support/postgres-server";
import { until } from "../support/until";
import { startWebhookFake, type WebhookFake } from "../support/webhook-fakes";

/** The production redelivery waits, in place of this file's 1 s. */
const DEFAULT_REDELIVERY = {
  CONTACT_REDELIVER_FIRST_SECONDS: "60",
  CONTACT_REDELIVER_UNCERTAIN_SECONDS: "900",
  CONTACT_REDELIVER_MAX_SECONDS: "3600",
};

describe.each([
  ["the SQLite store", false],
  ["a PostgreSQL database", true],
])("the contact engine on %s", { timeout: 90_000 }, (_name, onPostgres) => {
  let fake: EmailJsFake;
  let app: AppServer;
  let outbox: string;
  let env: Record<string, string>;
  let webhook: WebhookFake | undefined;

  afterEach(async () => {
    await app?.stop();
    await fake?.close();
    await webhook?.close();
    webhook = undefined;
    await rm(outbox, { recursive: true, force: true });
  });

  async function start(extra: Record<string, string> = {}) {
    fake = await startEmailJsFake();
    outbox = await mkdtemp(path.join(tmpdir(), "queue-contract-"));
    env = relayEnv(fake.url, {
      OUTBOX_DIR: outbox,
      CONTACT_REDELIVER_FIRST_SECONDS: "1",
      CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
      CONTACT_REDELIVER_MAX_SECONDS: "1",
      CONTACT_RATE_LIMIT_MAX: "100",
      ...(onPostgres ? { DATABASE_URL: await freshDatabase() } : {}),
      ...extra,
    });
    app = await startAppServer({ env });
  }

  const post = (subject: string, values: Record<string, string> = {}) =>
    postSubject(app.url, subject, values);
  const cli = (...args: string[]) => runOutboxCli(args, env);
  const count = async (args: string[], what: RegExp) => Number(what.exec((await cli(...args)).stdout)?.[1]);
  const waiting = () => count(["list"], /(\d+) undelivered message\(s\)/);
  const spam = () => count(["spam", "list"], /(\d+) suspected spam message\(s\)/);
  const delivered = (subject: string) =>
    fake.requests.filter((request) => request.status === 200 && request.rawBody.includes(`"${subject}"`));
  const SPAMMY = { name: "https://spam.example", message: "Go to https://bit.ly/abc or https://x.example" };

  it("a message the provider failed on is kept, listed, exported, and sent by itself once it is back", async () => {
    await start();
    fake.setMode({ kind: "status", status: 500 });
    expect(await post("Kept then sent")).toBe(502);
    expect(await waiting()).toBe(1);
    const listed = (await cli("list")).stdout;
    const id = /([0-9a-f]{32})(\.json)?\b/.exec(listed)![0];
    const exported = await cli("export", id);
    expect(exported.code).toBe(0);
    expect(JSON.stringify(JSON.parse(exported.stdout))).toContain("Kept then sent");

    fake.setMode({ kind: "status", status: 200 });
    await until(() => delivered("Kept then sent").length === 1, "the message, sent by itself", 60_000);
    await until(async () => (await waiting()) === 0, "nothing kept");
    expect(delivered("Kept then sent")).toHaveLength(1);
  });

  it("the same message posted again while kept is answered from the kept copy, never sent again", async () => {
    // On a busy machine the second post may come after this file's 1-s retry.
    await start(DEFAULT_REDELIVERY);
    fake.setMode({ kind: "status", status: 500 });
    expect(await post("Posted twice")).toBe(502);
    const calls = fake.requests.length;
    expect(await post("Posted twice")).toBe(502);
    expect(fake.requests).toHaveLength(calls);
    expect(await waiting()).toBe(1);
  });

  it("suspected spam is held, never sent by itself; the owner releases one (sent once) and deletes another", async () => {
    await start();
    expect(await post("Spam to release", SPAMMY)).toBe(303);
    expect(await post("Spam to delete", { ...SPAMMY, email: "other@example.com" })).toBe(303);
    expect(await spam()).toBe(2);
    expect(fake.requests).toHaveLength(0);

    const listed = (await cli("spam", "list")).stdout.split("\n");
    const idOf = (subject: string) =>
      /([0-9a-f]{32}(\.json)?)\s*$/.exec(listed.find((line) => line.includes(subject))!)![1]!;
    expect((await cli("spam", "release", idOf("Spam to release"))).stdout).toMatch(/released/);
    await until(() => delivered("Spam to release").length === 1, "the released message");
    expect((await cli("spam", "delete", idOf("Spam to delete"))).code).toBe(0);
    expect(await spam()).toBe(0);
    expect(delivered("Spam to release")).toHaveLength(1);
    expect(fake.requests.filter((request) => request.rawBody.includes("Spam to delete"))).toEqual([]);
  });

  it("a message the provider refuses for itself is held with its words, the rest go on; released, it is sent once", async () => {
    await start();
    fake.setMode({ kind: "status", status: 400, body: "Message body rejected" }, "Refused alone");
    expect(await post("Refused alone")).toBe(502);
    expect(await post("Goes on")).toBe(303);
    expect(delivered("Goes on")).toHaveLength(1);
    const line = (await cli("list")).stdout.split("\n").find((text) => text.includes("Refused alone"))!;
    expect(line).toMatch(/held: refused by provider, EmailJS said "Message body rejected"/);
    // Held, not waiting: a re-post, a resend and the redelivery leave it alone.
    expect(await post("Refused alone")).toBe(502);
    await cli("resend");
    expect(fake.requests.filter((request) => request.rawBody.includes("Refused alone"))).toHaveLength(1);

    fake.setMode({ kind: "status", status: 200 }, "Refused alone");
    const id = /([0-9a-f]{32})\s*$/.exec(line)![1]!;
    expect((await cli("spam", "release", id)).stdout).toMatch(/released/);
    await until(() => delivered("Refused alone").length === 1, "the released message");
    expect((await cli("list")).stdout).not.toContain("Refused alone");
  });

  it("resend sends what waits now, each once", async () => {
    await start();
    fake.setMode({ kind: "status", status: 500 });
    expect(await post("Resent 1")).toBe(502);
    await until(async () => (await waiting()) === 1, "one kept");
    fake.setMode({ kind: "status", status: 200 });
    await cli("resend");
    await until(() => delivered("Resent 1").length === 1, "the resent message");
    await until(async () => (await waiting()) === 0, "nothing kept");
    expect(delivered("Resent 1")).toHaveLength(1);
  });

  // What people meet, the same on either engine: each of these once differed between the two.
  describe("alike for visitors and the owner", () => {
    const alerts = () => (webhook?.accepted ?? []).map((alert) => (alert.body as { event?: string }).event);

    it("the owner's fix of a refused account: resend sends at once, the refusal ends, one 'back' alert", async () => {
      webhook = await startWebhookFake("json");
      await start({ OWNER_ALERT_URL: webhook.url, OWNER_ALERT_FORMAT: "json" });
      fake.setMode({
        kind: "status",
        status: 403,
        body: "API calls are disabled for non-browser applications",
      });
      expect(await post("Refused 1")).toBe(503);
      expect(await post("Refused 2")).toBe(503);
      expect(await waiting()).toBe(2);
      expect((await cli("status")).stdout).toMatch(/refusing/);

      fake.setMode({ kind: "status", status: 200 });
      // The first success ends the refusal: the other follows at the pace, sent by this resend or the server.
      const resent = await cli("resend");
      expect(resent.stdout).toMatch(/[12] sent, 0 still undelivered/);
      expect(resent.code).toBe(0);
      await until(() => delivered("Refused 2").length === 1, "the other, at the pace");
      expect(delivered("Refused 1")).toHaveLength(1);
      expect(delivered("Refused 2")).toHaveLength(1);
      expect((await cli("status")).stdout).toMatch(/^provider {4}ok$/m);
      await until(() => alerts().includes("provider_back"), "the 'back' alert");
      expect(alerts().filter((kind) => kind === "provider_back")).toHaveLength(1);
      // Kept after the fix: sent as any message, not held for a probe.
      expect(await post("After the fix")).toBe(303);
      await until(() => delivered("After the fix").length === 1, "the next message");
    });

    it("the owner's test while the account is refused goes at once; its success ends the refusal and the waiting follow", async () => {
      webhook = await startWebhookFake("json");
      await start({ OWNER_ALERT_URL: webhook.url, OWNER_ALERT_FORMAT: "json" });
      fake.setMode({ kind: "status", status: 412, body: "Gmail_API: Invalid grant" });
      expect(await post("Waits for the fix 1")).toBe(503);
      expect(await post("Waits for the fix 2")).toBe(503);
      fake.setMode({ kind: "status", status: 200 });
      const tested = await cli("test");
      expect(tested.code, tested.stdout + tested.stderr).toBe(0);
      await until(
        () => delivered("Waits for the fix 1").length + delivered("Waits for the fix 2").length === 2,
        "the waiting messages, at the pace",
      );
      await until(() => alerts().includes("provider_back"), "the 'back' alert");
      expect(alerts().filter((kind) => kind === "provider_back")).toHaveLength(1);
    });

    it("while the provider is known to fail, later visitors hear the failure, not 'sent'", async () => {
      await start({ EMAILJS_MAX_PER_SECOND: "1" });
      fake.setMode({ kind: "status", status: 500 });
      expect(await post("Down 1")).toBe(502);
      const [second, third] = await Promise.all([post("Down 2"), post("Down 3")]);
      expect([second, third]).toEqual([502, 502]);
      expect(await waiting()).toBe(3);
    });

    it("a message waiting only for its slot leaves in it: each of three posts in one second within 2 s of the one before", async () => {
      // The default redelivery waits: a message behind the pace never waits for the redelivery's next look.
      await start({ EMAILJS_MAX_PER_SECOND: "1", ...DEFAULT_REDELIVERY });
      const subjects = ["Same second A", "Same second B", "Same second C"];
      expect(await Promise.all(subjects.map((subject) => post(subject)))).toEqual([303, 303, 303]);
      await until(() => subjects.every((subject) => delivered(subject).length === 1), "all three", 60_000);
      const at = subjects.map((subject) => delivered(subject)[0]!.at).sort((a, b) => a - b);
      expect(
        [at[1]! - at[0]!, at[2]! - at[1]!].every((gap) => gap < 2_000),
        `gaps ${at}`,
      ).toBe(true);
    });

    it("identical posts at once: each gets its own answer, and the message is tried once", async () => {
      await start();
      // Mailed: both are told so, and it goes once.
      fake.setMode({ kind: "status", status: 200, delayMs: 500 });
      expect(await Promise.all([post("Twice at once"), post("Twice at once")])).toEqual([303, 303]);
      await until(() => delivered("Twice at once").length === 1, "the message");
      await until(async () => (await waiting()) === 0, "nothing kept");
      // The provider fails it: both hear the failure (neither a stand-in "sent"), and one copy is kept.
      fake.setMode({ kind: "status", status: 500, delayMs: 500 });
      expect(await Promise.all([post("Twice, failed"), post("Twice, failed")])).toEqual([502, 502]);
      expect(fake.requests.filter((request) => request.rawBody.includes("Twice, failed"))).toHaveLength(1);
      expect(await waiting()).toBe(1);
    });

    it("messages that are mailed spend no kept places: one client's posts behind a slow pace are all taken", async () => {
      // One a second: each post after the first waits past the visitor's 0.8 s for its slot, and one client
      // may leave only three kept messages.
      await start({ EMAILJS_MAX_PER_SECOND: "1" });
      const answers: number[] = [];
      for (let i = 1; i <= 6; i++) answers.push(await post(`Behind the pace ${i}`));
      expect(answers).toEqual([303, 303, 303, 303, 303, 303]);
      await until(
        () => [1, 2, 3, 4, 5, 6].every((i) => delivered(`Behind the pace ${i}`).length === 1),
        "all six mailed",
        30_000,
      );
      expect(await post("One more")).toBe(303);
    });

    it("a message refused for itself is held and never becomes the probe: genuine visitors go on", async () => {
      webhook = await startWebhookFake("json");
      await start({ OWNER_ALERT_URL: webhook.url, OWNER_ALERT_FORMAT: "json" });
      fake.setMode({ kind: "status", status: 400, body: "Template is corrupted" }, "Refused A");
      fake.setMode({ kind: "status", status: 400, body: "Template is corrupted" }, "Refused B");
      expect(await post("Refused A")).toBe(502);
      expect(await post("Refused B")).toBe(502);
      for (let i = 1; i <= 5; i++) expect(await post(`Genuine ${i}`)).toBe(303);
      for (let i = 1; i <= 5; i++) expect(delivered(`Genuine ${i}`)).toHaveLength(1);
      expect((await cli("status")).stdout).toMatch(/^provider {4}ok$/m);
      const listed = (await cli("list")).stdout;
      expect(listed).toMatch(/"Refused A".*held: refused by provider/);
      expect(listed).toMatch(/"Refused B".*held: refused by provider/);
      expect(alerts()).not.toContain("provider_refusing");
    });
  });
});
