// One contract, both engines: the production server on the folder (no REDIS_URL) and on the Redis queue,
// driven the same way (a visitor's post, the fake EmailJS, the owner's CLI), held to the same outcomes
// (decision 053).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { postSubject, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { runOutboxCli } from "../support/outbox-cli";
import { startRedisServer, type RedisServer } from "../support/redis-server";
import { until } from "../support/until";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(() => redis?.stop());

describe.each([
  ["the folder", false],
  ["the Redis queue", true],
])("the contact engine on %s", { timeout: 90_000 }, (_name, withRedis) => {
  let fake: EmailJsFake;
  let app: AppServer;
  let outbox: string;
  let env: Record<string, string>;

  afterEach(async () => {
    await app?.stop();
    await fake?.close();
    await rm(outbox, { recursive: true, force: true });
    if (withRedis) await redis.flush();
  });

  async function start() {
    fake = await startEmailJsFake();
    outbox = await mkdtemp(path.join(tmpdir(), "queue-contract-"));
    env = relayEnv(fake.url, {
      OUTBOX_DIR: outbox,
      CONTACT_REDELIVER_FIRST_SECONDS: "1",
      CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
      CONTACT_REDELIVER_MAX_SECONDS: "1",
      ...(withRedis ? { REDIS_URL: redis.url } : {}),
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
    await start();
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
});
