// What the contact checks remember beside the limit, against a real redis-server: a confirmation
// taken once and the same text counted across replicas, and each process's memory while Redis is away.
import { describe, expect, it } from "vitest";
import { createBotChecks } from "~/contact/bot-checks.server";
import { CONFIRMATION_FIELD } from "~/contact/contract";
import { createSpamScore } from "~/contact/spam-score.server";
import { VALID, formRequest, silentConfigLogger, testConfig } from "../support/contact";
import { useRedisServer } from "../support/use-redis-server";
import { until } from "../support/until";

const config = testConfig({
  CONTACT_BOT_CHECKS: "on",
  CONTACT_CONFIRM_MIN_SECONDS: "0",
  SESSION_SECRET: "a shared secret of thirty-two characters or more",
});

const redis = useRedisServer();

/** One app process's view: its own connection, proof checks and score. */
async function replica() {
  const link = redis.connect(silentConfigLogger);
  await until(() => link.state() === "up", "the connection");
  return { link, botChecks: createBotChecks(config, link, null), score: createSpamScore(link) };
}

const confirmed = (token: string) => {
  const form = new FormData();
  form.set(CONFIRMATION_FIELD, token);
  return form;
};

const sameText = (score: ReturnType<typeof createSpamScore>, message: string, client: string) =>
  score({
    message: { ...VALID, message },
    request: formRequest({}),
    client,
    requestSignals: false,
    sentOrigin: true,
  }).then(({ signals }) => signals);

describe("with Redis up", () => {
  it("a confirmation is taken once by every replica, under a key that expires with the proof", async () => {
    const a = await replica();
    const b = await replica();
    const token = a.botChecks.confirmation("198.51.100.10");
    expect(await a.botChecks.verify(confirmed(token), "198.51.100.10")).toEqual({
      ok: true,
      via: "confirmation",
    });
    expect(await b.botChecks.verify(confirmed(token), "198.51.100.10")).toEqual({
      ok: false,
      problem: "used",
    });

    const keys = await a.link.client.keys("portfolio:used:*");
    expect(keys).toHaveLength(1);
    const ttl = await a.link.client.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(config.botChecks.maxAgeMinutes * 60_000 - 10_000);
    expect(ttl).toBeLessThanOrEqual(config.botChecks.maxAgeMinutes * 60_000);
  });

  it("the same text from clients of both replicas is counted once, for an hour", async () => {
    const a = await replica();
    const b = await replica();
    const text = "One campaign, posted through two replicas.";
    const signals = [];
    for (const [i, { score }] of [a, b, a, b].entries())
      signals.push(await sameText(score, text, `198.51.100.${20 + i}`));
    expect(signals).toEqual([[], [], [], ["same_text_elsewhere"]]);
    expect(await sameText(a.score, text, "198.51.100.20")).toEqual(["same_text_elsewhere"]);

    const [key, ...others] = await a.link.client.keys("portfolio:same-text:*");
    expect(others).toEqual([]);
    expect(await a.link.client.scard(key!)).toBe(4);
    expect(await a.link.client.ttl(key!)).toBeGreaterThan(3_590);
  });
});

describe("while Redis is away", () => {
  it("each process remembers on its own: a confirmation once per process, the same text from its own clients", async () => {
    const a = await replica();
    const b = await replica();
    await redis.stop();
    try {
      await until(() => a.link.state() === "down" && b.link.state() === "down", "the outage to be seen");
      const token = a.botChecks.confirmation("198.51.100.30");
      expect(await a.botChecks.verify(confirmed(token), "198.51.100.30")).toEqual({
        ok: true,
        via: "confirmation",
      });
      expect(await a.botChecks.verify(confirmed(token), "198.51.100.30")).toEqual({
        ok: false,
        problem: "used",
      });
      expect(await b.botChecks.verify(confirmed(token), "198.51.100.30")).toEqual({
        ok: true,
        via: "confirmation",
      });

      const text = "One campaign, posted while Redis is away.";
      const fromA = [];
      for (let i = 0; i < 4; i++) fromA.push(await sameText(a.score, text, `198.51.100.${40 + i}`));
      expect(fromA).toEqual([[], [], [], ["same_text_elsewhere"]]);
      expect(await sameText(b.score, text, "198.51.100.50")).toEqual([]);
    } finally {
      await redis.start();
    }
  }, 30_000);
});
