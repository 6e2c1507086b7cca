// What the message says and how many are mailed: suspected spam is held in the store, OUTBOX_DIR/outbox.sqlite
// (never mailed, never silently dropped, the visitor told it was sent), the site's daily send budget keeps
// the rest for the owner, and `outbox spam list|release|delete` lets the owner decide.
import { describe, expect, it } from "vitest";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { VALID, expectFailure, expectRedirect, formRequest, relayEnv, setupAction } from "../support/contact";
import { runOutboxCli } from "../support/outbox-cli";
import { keptIn, keptWith, withStore } from "../support/store";
import { KEPT_LIMIT, suspected } from "~/contact/rules/rulebook.server";
import type { ContactEvent } from "~/contact/events.server";

const scratch = useFakeAndOutbox("contact-spam-");

const env = (extra: Record<string, string> = {}) =>
  relayEnv(scratch.fake.url, {
    OUTBOX_DIR: scratch.outbox,
    CONTACT_RATE_LIMIT_MAX: "100",
    ...extra,
  });
const from = (client: string, values: Record<string, string>) =>
  formRequest(values, { "X-Forwarded-For": client });
/** The suspected spam held in the real store, oldest first. */
const spam = async () =>
  (await keptIn(scratch.outbox)).filter((m) => m.state === "held" && m.for === "suspected_spam");
const DAY = 86_400_000;

describe("the score", () => {
  it.each([
    [
      "many links",
      { message: "See https://a.example/1 https://b.example/2 https://c.example/3" },
      "many_links",
    ],
    [
      "a shortener and a second link",
      { message: "Go to https://bit.ly/abc or https://x.example" },
      "link_shortener",
    ],
    ["a link as the name", { name: "https://cheap.example" }, "link_in_name_or_subject"],
    ["a bare domain as the name", { name: "cheap-pills.example" }, "link_in_name_or_subject"],
    ["a link in markup", { message: 'Hi <a href="https://x.example">here</a>' }, "markup_link"],
    [
      "a disposable sender and two links",
      { email: "x@mailinator.com", message: "https://a.example https://b.example" },
      "disposable_sender",
    ],
  ])("%s: held as suspected spam, not mailed, the visitor told it was sent", async (_, change, signal) => {
    const events: unknown[] = [];
    const { run } = await setupAction(env(), { log: (event) => events.push(event) });
    const answer = expectRedirect(await run(from("203.0.113.5", { ...VALID, ...change })));
    expect(answer.status).toBe(303);
    expect(scratch.fake.requests).toHaveLength(0);
    const kept = await keptIn(scratch.outbox);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      state: "held",
      for: "suspected_spam",
      nextAttempt: null,
      network: "203.0.113.0/24",
      params: { name: (change as { name?: string }).name ?? VALID.name },
    });
    expect(kept[0]!.signals).toContain(signal);
    // The log names the decision and its reasons, never the text.
    expect(events).toContainEqual({ outcome: "kept", for: "suspected_spam", signals: kept[0]!.signals });
    expect(JSON.stringify(events)).not.toContain(VALID.message);
  });

  it("one link, or a domain mentioned in the subject, is a person's message: mailed", async () => {
    const { run } = await setupAction(env());
    expectRedirect(await run(from("203.0.113.6", { ...VALID, message: "My work: https://github.com/me" })));
    expectRedirect(
      await run(from("203.0.113.7", { ...VALID, subject: "About example.com", message: "Hi (2)" })),
    );
    expect(scratch.fake.requests).toHaveLength(2);
    expect(await keptIn(scratch.outbox)).toEqual([]);
  });

  it("the same text from many clients within the hour is held from the tenth on", async () => {
    const { run } = await setupAction(env());
    const text = "Dear owner, we build websites for cheap. Reply to learn more.";
    for (let i = 0; i < 12; i++) {
      expectRedirect(
        await run(from(`203.0.113.${20 + i}`, { ...VALID, subject: `Offer ${i}`, message: text })),
      );
    }
    expect(scratch.fake.requests).toHaveLength(9);
    expect((await spam()).map((m) => m.params.subject)).toEqual(["Offer 9", "Offer 10", "Offer 11"]);
  });

  it("with CONTACT_BOT_CHECKS=off a script's post is not judged by its headers: developers' tests get through", async () => {
    const { run } = await setupAction({ ...env(), CONTACT_BOT_CHECKS: "off" });
    const bare = new Request("http://localhost/?index", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": "curl/8" },
      body: new URLSearchParams(VALID),
    });
    expectRedirect(await run(bare));
    expect(scratch.fake.requests).toHaveLength(1);
  });

  it("the store holds at most 5 suspected spam a day from one client; past that they are not kept, and told so", async () => {
    const events: ContactEvent[] = [];
    const { run } = await setupAction(env(), { log: (event) => events.push(event) });
    for (let i = 0; i < 7; i++) {
      const message = `Buy now https://a.example/${i} https://b.example https://c.example`;
      const outcome = await run(from("203.0.113.9", { ...VALID, message }));
      if (i < 5) expectRedirect(outcome);
      else expect(expectFailure(outcome).data).toMatchObject({ status: 503, reason: "not_kept" });
    }
    expect(await spam()).toHaveLength(5);
    expect(events.filter((event) => event.outcome === "not_kept")).toEqual([
      { outcome: "not_kept", for: "suspected_spam", why: "client_full" },
      { outcome: "not_kept", for: "suspected_spam", why: "client_full" },
    ]);
    expect(scratch.fake.requests).toHaveLength(0);
  });
});

describe("full spam places", () => {
  it("make room by the oldest suspected spam, logged, so a message held as spam is never lost while told it was sent", async () => {
    const now = Date.now();
    const filler = (i: number) =>
      suspected(
        { name: "F", from_email: "f@example.com", subject: `Filler ${i}`, message: "x", to_name: "O" },
        "192.0.2.0/24",
        ["many_links"],
        now - (i === 0 ? 3 : 1) * DAY,
      );
    const oldest = filler(0).id;
    await withStore(scratch.outbox, (db) => {
      for (let i = 0; i < KEPT_LIMIT; i++) db.put(filler(i));
    });
    expect(await spam()).toHaveLength(KEPT_LIMIT);
    const events: ContactEvent[] = [];
    const { run } = await setupAction(env(), { log: (event) => events.push(event) });
    const spammy = {
      ...VALID,
      name: "https://spam.example",
      message: "Go to https://bit.ly/abc or https://x.example",
    };
    expectRedirect(await run(from("203.0.113.21", spammy)));
    const held = await spam();
    expect(held).toHaveLength(KEPT_LIMIT);
    expect(held.map((m) => m.id)).not.toContain(oldest);
    expect(held.at(-1)!.params).toMatchObject({ name: spammy.name, message: spammy.message });
    expect(events).toContainEqual({ outcome: "purged", for: "suspected_spam", reason: "full", ageDays: 3 });
    expect(events).toContainEqual(expect.objectContaining({ outcome: "kept", for: "suspected_spam" }));
    expect(scratch.fake.requests).toHaveLength(0);
  });
});

describe("the daily send budget", () => {
  it("past CONTACT_DAILY_SEND_LIMIT, messages are kept for the owner, not mailed, and the visitor told it was sent", async () => {
    const { run } = await setupAction(env({ CONTACT_DAILY_SEND_LIMIT: "2" }));
    for (let i = 0; i < 4; i++) {
      expectRedirect(
        await run(from(`203.0.113.${40 + i}`, { ...VALID, subject: `Budget ${i}`, message: `Hi ${i}` })),
      );
    }
    expect(scratch.fake.requests).toHaveLength(2);
    const kept = await keptIn(scratch.outbox);
    expect(kept.map((m) => m.params.subject)).toEqual(["Budget 2", "Budget 3"]);
    for (const message of kept) {
      // Waits for the day's turn, sent by itself then; the provider was never asked.
      expect(message).toMatchObject({ state: "waiting", for: "day_limit", uncertain: false, attempts: 0 });
      expect(message.nextAttempt).toBeGreaterThan(Date.now());
      expect(message.providerText).toBeUndefined();
    }
  });
});

describe("outbox spam", () => {
  async function keepSpam(subject: string) {
    const { run } = await setupAction(env());
    const message = `Deals https://a.example https://b.example https://c.example ${subject}`;
    expectRedirect(await run(from("203.0.113.60", { ...VALID, subject, message })));
  }

  it("list shows each message with its reasons; release mails it once; delete forgets it", async () => {
    await keepSpam("Keep me");
    await keepSpam("Drop me");
    const childEnv = env();
    const listed = await runOutboxCli(["spam", "list"], childEnv);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('"Keep me"');
    expect(listed.stdout).toContain("held: suspected spam: many_links");
    expect(listed.stdout).toContain(`2 suspected spam message(s) in ${scratch.outbox}/outbox.sqlite`);

    const keep = (await keptWith(scratch.outbox, "Keep me"))!.id;
    const drop = (await keptWith(scratch.outbox, "Drop me"))!.id;
    expect(listed.stdout).toContain(keep);
    expect(listed.stdout).toContain(drop);
    const released = await Promise.all([
      runOutboxCli(["spam", "release", keep], childEnv),
      runOutboxCli(["spam", "release", keep], childEnv),
    ]);
    expect(released.map((run) => run.code).sort()).toEqual([0, expect.any(Number)]);
    expect(released.map((run) => run.code)).not.toEqual([0, 0]);
    expect(scratch.fake.requests).toHaveLength(1);
    expect(scratch.fake.requests[0]!.rawBody).toContain("Keep me");
    expect(await keptWith(scratch.outbox, "Keep me")).toBeUndefined();

    const deleted = await runOutboxCli(["spam", "delete", drop], childEnv);
    expect(deleted.code).toBe(0);
    expect(await keptIn(scratch.outbox)).toEqual([]);
    expect(scratch.fake.requests).toHaveLength(1);
  });

  it("a path instead of an id, or a missing message, is refused clearly", async () => {
    const outside = await runOutboxCli(["spam", "release", "../undelivered/x.json"], env());
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("without a folder");
    const missing = await runOutboxCli(["spam", "delete", "0123.json"], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("0123.json: no such held message");
  });
});
