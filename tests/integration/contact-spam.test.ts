// What the message says and how many are mailed: suspected spam is kept in OUTBOX_DIR/spam/ (never
// mailed, never silently dropped, the visitor told it was sent), the site's daily send budget keeps
// the rest for the owner, and `outbox spam list|release|delete` lets the owner decide.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { VALID, expectFailure, expectRedirect, formRequest, relayEnv, setupAction } from "../support/contact";
import { runOutboxCli } from "../support/outbox-cli";
import { UNDELIVERED_LIMIT, undeliveredFileName } from "~/contact/store.server";
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
const files = async (folder: string) => {
  try {
    return (await readdir(path.join(scratch.outbox, folder))).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
};

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
  ])("%s: kept as suspected spam, not mailed, the visitor told it was sent", async (_, change, signal) => {
    const events: unknown[] = [];
    const { run } = setupAction(env(), { log: (event) => events.push(event) });
    const answer = expectRedirect(await run(from("203.0.113.5", { ...VALID, ...change })));
    expect(answer.status).toBe(303);
    expect(scratch.fake.requests).toHaveLength(0);
    const [file] = await files("spam");
    const kept = JSON.parse(await readFile(path.join(scratch.outbox, "spam", file!), "utf8"));
    expect(kept).toMatchObject({
      for: "suspected_spam",
      template_params: { name: (change as { name?: string }).name ?? VALID.name },
    });
    expect(kept.signals).toContain(signal);
    // The log names the decision and its reasons, never the text.
    expect(events).toContainEqual({
      outcome: "kept",
      for: "suspected_spam",
      signals: kept.signals,
      stored: "new",
    });
    expect(JSON.stringify(events)).not.toContain(VALID.message);
  });

  it("one link, or a domain mentioned in the subject, is a person's message: mailed", async () => {
    const { run } = setupAction(env());
    expectRedirect(await run(from("203.0.113.6", { ...VALID, message: "My work: https://github.com/me" })));
    expectRedirect(
      await run(from("203.0.113.7", { ...VALID, subject: "About example.com", message: "Hi (2)" })),
    );
    expect(scratch.fake.requests).toHaveLength(2);
    expect(await files("spam")).toEqual([]);
  });

  it("the same text from many clients within the hour is kept from the tenth on", async () => {
    const { run } = setupAction(env());
    const text = "Dear owner, we build websites for cheap. Reply to learn more.";
    for (let i = 0; i < 12; i++) {
      expectRedirect(
        await run(from(`203.0.113.${20 + i}`, { ...VALID, subject: `Offer ${i}`, message: text })),
      );
    }
    expect(scratch.fake.requests).toHaveLength(9);
    expect(await files("spam")).toHaveLength(3);
  });

  it("with CONTACT_BOT_CHECKS=off a script's post is not judged by its headers: developers' tests get through", async () => {
    const { run } = setupAction({ ...env(), CONTACT_BOT_CHECKS: "off" });
    const bare = new Request("http://localhost/?index", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": "curl/8" },
      body: new URLSearchParams(VALID),
    });
    expectRedirect(await run(bare));
    expect(scratch.fake.requests).toHaveLength(1);
  });

  it("the spam folder takes at most 5 a day from one client; past that they are not kept, and told so", async () => {
    const events: { outcome?: string; stored?: string }[] = [];
    const { run } = setupAction(env(), { log: (event) => events.push(event) });
    for (let i = 0; i < 7; i++) {
      const message = `Buy now https://a.example/${i} https://b.example https://c.example`;
      const outcome = await run(from("203.0.113.9", { ...VALID, message }));
      if (i < 5) expectRedirect(outcome);
      else expect(expectFailure(outcome).data).toMatchObject({ status: 503, reason: "not_kept" });
    }
    expect(await files("spam")).toHaveLength(5);
    expect(events.filter((event) => event.stored === "client_full")).toHaveLength(2);
    expect(scratch.fake.requests).toHaveLength(0);
  });
});

describe("a full spam folder", () => {
  it("makes room by its oldest suspected spam, logged, so a message kept as spam is never lost while told it was sent", async () => {
    const dir = path.join(scratch.outbox, "spam");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const day = 86_400_000;
    await Promise.all(
      Array.from({ length: UNDELIVERED_LIMIT }, (_, i) => {
        const params = {
          name: "F",
          from_email: "f@example.com",
          subject: `Filler ${i}`,
          message: "x",
          to_name: "O",
        };
        const entry = {
          lib_version: "4.4.1",
          template_params: params,
          for: "suspected_spam",
          upstreamStatus: 0,
          uncertain: false,
        };
        const time = new Date(Date.now() - (i === 0 ? 3 : 1) * day).toISOString();
        return writeFile(path.join(dir, undeliveredFileName(params)), JSON.stringify({ ...entry, time }), {
          mode: 0o600,
        });
      }),
    );
    const oldest = undeliveredFileName({
      name: "F",
      from_email: "f@example.com",
      subject: "Filler 0",
      message: "x",
      to_name: "O",
    });
    const events: ContactEvent[] = [];
    const { run } = setupAction(env(), { log: (event) => events.push(event) });
    const spammy = {
      ...VALID,
      name: "https://spam.example",
      message: "Go to https://bit.ly/abc or https://x.example",
    };
    expectRedirect(await run(from("203.0.113.21", spammy)));
    const now = await files("spam");
    expect(now).toHaveLength(UNDELIVERED_LIMIT);
    expect(now).not.toContain(oldest);
    expect(events).toContainEqual({ outcome: "purged", folder: "spam", reason: "folder_full", ageDays: 3 });
    expect(events).toContainEqual(
      expect.objectContaining({ outcome: "kept", for: "suspected_spam", stored: "new" }),
    );
    expect(scratch.fake.requests).toHaveLength(0);
  });
});

describe("the daily send budget", () => {
  it("past CONTACT_DAILY_SEND_LIMIT, messages are kept for the owner, not mailed, and the visitor told it was sent", async () => {
    const { run } = setupAction(env({ CONTACT_DAILY_SEND_LIMIT: "2" }));
    for (let i = 0; i < 4; i++) {
      expectRedirect(
        await run(from(`203.0.113.${40 + i}`, { ...VALID, subject: `Budget ${i}`, message: `Hi ${i}` })),
      );
    }
    expect(scratch.fake.requests).toHaveLength(2);
    const kept = await files("undelivered");
    expect(kept).toHaveLength(2);
    const entry = JSON.parse(await readFile(path.join(scratch.outbox, "undelivered", kept[0]!), "utf8"));
    expect(entry).toMatchObject({ for: "day_limit", uncertain: false, upstreamStatus: 0 });
  });
});

describe("outbox spam", () => {
  async function keepSpam(subject: string) {
    const { run } = setupAction(env());
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
    expect(listed.stdout).toContain("2 suspected spam message(s)");

    const [keep, drop] = await Promise.all(
      ["Keep me", "Drop me"].map(async (subject) => {
        for (const name of await files("spam")) {
          if ((await readFile(path.join(scratch.outbox, "spam", name), "utf8")).includes(subject))
            return name;
        }
        throw new Error(subject);
      }),
    );
    const released = await Promise.all([
      runOutboxCli(["spam", "release", keep!], childEnv),
      runOutboxCli(["spam", "release", keep!], childEnv),
    ]);
    expect(released.map((run) => run.code).sort()).toEqual([0, expect.any(Number)]);
    expect(scratch.fake.requests).toHaveLength(1);
    expect(scratch.fake.requests[0]!.rawBody).toContain("Keep me");

    const deleted = await runOutboxCli(["spam", "delete", drop!], childEnv);
    expect(deleted.code).toBe(0);
    expect(await files("spam")).toEqual([]);
    expect(scratch.fake.requests).toHaveLength(1);
  });

  it("a path instead of a file name, or a missing file, is refused clearly", async () => {
    const outside = await runOutboxCli(["spam", "release", "../undelivered/x.json"], env());
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("without a folder");
    const missing = await runOutboxCli(["spam", "delete", "0123.json"], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("0123.json: no such held message");
  });
});
