// The Redis queue's own faults on the wire (its rules are the contract suite's): shutdown ends with Redis away,
// and Redis killed mid-flood never turns an accepted message into a server error (decision 053).
import Redis from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { postForm, postSubject, relayEnv, VALID } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { startRedisServer, type RedisServer } from "../support/redis-server";
import { until } from "../support/until";

let fake: EmailJsFake | undefined;
let redis: RedisServer | undefined;
let app: AppServer | undefined;

afterEach(async () => {
  await app?.stop();
  await fake?.close();
  await redis?.stop();
  app = fake = redis = undefined;
}, 30_000);

/** Redis, the fake and the server on it; `extra` on top of the relay's environment. */
async function start(extra: Record<string, string> = {}) {
  redis = await startRedisServer();
  fake = await startEmailJsFake();
  app = await startAppServer({
    env: relayEnv(fake.url, { REDIS_URL: redis.url, CONTACT_RATE_LIMIT_MAX: "100", ...extra }),
  });
  return { redis, fake, app };
}

describe("the Redis engine", { timeout: 60_000 }, () => {
  it("SIGTERM while Redis is away and EmailJS hangs: the visitor is answered and the exit is 0", async () => {
    const { redis, fake, app } = await start();
    fake.setMode({ kind: "hang" });
    const answer = postSubject(app.url, "Hanging");
    await until(() => fake.requests.length === 1, "the job to reach the provider");
    await redis.stop();
    const exit = app.stop();
    // Its job was in the queue before Redis went: the answer says it waits, as the queue was told.
    expect(await answer).toBe(303);
    expect(await exit).toBe(0);
  });

  it("Redis killed while 40 posts run: no visitor gets a server error", async () => {
    const { redis, fake, app } = await start();
    fake.setMode({ kind: "status", status: 200, delayMs: 300 });
    const admin = new Redis(redis.url);
    const pid = Number(/process_id:(\d+)/.exec(await admin.info("server"))![1]);
    admin.disconnect();
    const answers = Array.from({ length: 40 }, (_, i) =>
      postForm(`${app.url}/?index`, {
        ...VALID,
        subject: `Flood ${i}`,
        message: `${VALID.message} ${i}`,
      }).then((response) => response.status),
    );
    await until(() => fake.requests.length >= 2, "the queue to be sending");
    process.kill(pid, "SIGKILL");
    const statuses = await Promise.all(answers);
    // Started again, so that it can be stopped after the test.
    await redis.start();
    // Each one the success page or a failure of the contract: none Remix's "Unexpected Server Error".
    expect(statuses.filter((status) => status === 500)).toEqual([]);
  });
});
