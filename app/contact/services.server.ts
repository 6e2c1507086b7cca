// The contact feature's one wiring root: every service, built once from the configuration (decision 049).
import type { AppConfig } from "~/config.server";
import type { RedisLink } from "~/lib/redis.server";
import { createBotChecks } from "./bot-checks.server";
import type { RetryOptions } from "./emailjs.server";
import { logContactEvent, type ContactLogger } from "./events.server";
import { createContactFlash } from "./flash.server";
import { createLimits } from "./limits.server";
import { createNotify } from "./notify.server";
import type { Engine } from "./queue.server";
import { createRedisEngine } from "./queue-redis.server";
import { createSqliteEngine } from "./queue-sqlite.server";
import { createRelay, relayParts } from "./relay.server";
import { redisState } from "./shared-state.server";
import { createSpamScore } from "./spam-score.server";
import { openPostgresStore } from "./store-postgres.server";
import { openSqliteStore } from "./store-sqlite.server";

export type ContactServices = Awaited<ReturnType<typeof createContactServices>>;

/** Throws a StoreError in one line when the store cannot be opened or read: the site never runs without it. */
export async function createContactServices(
  config: AppConfig,
  {
    toName,
    redis = null,
    log = logContactEvent,
    retry,
    waitForStore = true,
  }: {
    toName: string;
    redis?: RedisLink | null;
    log?: ContactLogger;
    retry?: RetryOptions;
    /** A server waits for a database it cannot reach yet; the owner's CLI says so and stops. */
    waitForStore?: boolean;
  },
) {
  // The PostgreSQL database of DATABASE_URL, else one SQLite file in OUTBOX_DIR: everything without Redis; with
  // it, where a message waits while Redis is away.
  const db = config.databaseUrl
    ? await openPostgresStore(config.databaseUrl, log, { wait: waitForStore })
    : await openSqliteStore(config.mail.outboxDir, log);
  // Its commands wait for the connection up to the client's command timeout (1 s), then fail.
  const state = redis ? redisState(redis.client.duplicate({ enableOfflineQueue: true })) : db.state;
  const { notify, settled } = createNotify(config, state, log);
  const parts = config.mail.mode === "relay" ? relayParts(config, state) : null;
  const waiting = async () => (await db.list()).filter(({ message }) => message.state === "waiting").length;
  const relay = parts && createRelay(config, parts, { log, notify, retry, waiting });
  const limits = createLimits(config, redis);
  // With Redis every message is a job in one queue; without it, the store's own engine (decisions 057, 062).
  const engine: Engine =
    parts && redis && config.redisUrl
      ? createRedisEngine(config.redisUrl, {
          config,
          db,
          state,
          log,
          notify,
          quotas: limits.quotas,
          risks: redis.risks,
          relay: (pacing, waiting) =>
            createRelay(config, { ...parts, pacing }, { log, notify, retry: ONE_TRY, waiting }),
        })
      : createSqliteEngine({
          config,
          db,
          relay,
          notify,
          quotas: limits.quotas,
          log,
        });
  return {
    config,
    toName,
    log,
    notify,
    settled,
    state,
    flash: createContactFlash(config.sessionSecret),
    proof: createBotChecks(config, redis, redis ? null : db),
    limits,
    score: createSpamScore(redis),
    relay,
    engine,
    delivery: engine.delivery,
    store: db,
  };
}

/** A job's one request: BullMQ retries, at the provider's pace, with the redelivery backoff. */
const ONE_TRY: RetryOptions = {
  attemptTimeoutMs: 3_000,
  initialBackoffMs: 0,
  maxRetryAfterMs: 0,
  maxAttempts: 1,
  deadlineMs: 3_000,
};
