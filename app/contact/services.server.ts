// The contact feature's one wiring root: every service, built once from the configuration (decision 049).
import type { AppConfig } from "~/config.server";
import type { RedisLink } from "~/lib/redis.server";
import { createBotChecks } from "./bot-checks.server";
import { createDelivery } from "./delivery.server";
import type { RetryOptions } from "./emailjs.server";
import { logContactEvent, type ContactLogger } from "./events.server";
import { createContactFlash } from "./flash.server";
import { createNotify } from "./housekeeping.server";
import { createLimits } from "./limits.server";
import { createRelay, relayParts } from "./relay.server";
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
  const { notify, settled } = createNotify(config, log);
  const relay =
    config.mail.mode === "relay"
      ? createRelay(config, relayParts(config, redis), { log, notify, retry })
      : null;
  return {
    config,
    toName,
    log,
    notify,
    settled,
    flash: createContactFlash(config.sessionSecret),
    proof: createBotChecks(config, redis),
    limits: createLimits(config, redis),
    score: createSpamScore(redis),
    relay,
    delivery: createDelivery(config.mail, log, relay),
    ownerDelivery: createDelivery(config.mail, log, relay, "owner"),
  };
}
