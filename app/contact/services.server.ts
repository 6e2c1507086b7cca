// The contact feature's one wiring root: every service, built once from the configuration (decision 049).
import type { AppConfig } from "~/config.server";
import type { RedisLink } from "~/lib/redis.server";
import { createBotChecks } from "./bot-checks.server";
import type { RetryOptions } from "./emailjs.server";
import { logContactEvent, type ContactLogger } from "./events.server";
import { createContactFlash } from "./flash.server";
import { createNotify } from "./housekeeping.server";
import { createLimits } from "./limits.server";
import type { Engine } from "./queue.server";
import { createFolderEngine } from "./queue-folder.server";
import { createRedisEngine } from "./queue-redis.server";
import { createRelay, relayParts } from "./relay.server";
import { folderState, redisState } from "./shared-state.server";
import { createSpamScore } from "./spam-score.server";

export type ContactServices = ReturnType<typeof createContactServices>;

export function createContactServices(
  config: AppConfig,
  {
    toName,
    redis = null,
    log = logContactEvent,
    retry,
  }: { toName: string; redis?: RedisLink | null; log?: ContactLogger; retry?: RetryOptions },
) {
  // Its commands wait for the connection up to the client's command timeout (1 s), then fail.
  const state = redis
    ? redisState(redis.client.duplicate({ enableOfflineQueue: true }))
    : folderState(config.mail.stateDir);
  const { notify, settled } = createNotify(config, state, log);
  const parts = config.mail.mode === "relay" ? relayParts(config, state) : null;
  const relay = parts && createRelay(config, parts, { log, notify, retry });
  const limits = createLimits(config, redis);
  // With Redis every message is a job in one queue; without it, the folder for one process (decision 053).
  const engine: Engine =
    parts && redis && config.redisUrl
      ? createRedisEngine(config.redisUrl, {
          config,
          state,
          log,
          notify,
          quotas: limits.quotas,
          risks: redis.risks,
          relay: (pacing, waiting) =>
            createRelay(config, { ...parts, pacing }, { log, notify, retry: ONE_TRY, waiting }),
        })
      : createFolderEngine({ config, relay, notify, state, quotas: limits.quotas, log });
  return {
    config,
    toName,
    log,
    notify,
    settled,
    state,
    flash: createContactFlash(config.sessionSecret),
    proof: createBotChecks(config, redis),
    limits,
    score: createSpamScore(redis),
    relay,
    engine,
    delivery: engine.delivery,
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
