// The one wiring root of the contact feature: every service a post, the challenge and the redelivery use,
// built once from the configuration; tests swap parts through `options`.
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
    /** Alerts still being sent: awaited before the process exits. */
    settled,
    flash: createContactFlash(config.sessionSecret),
    proof: createBotChecks(config, redis),
    limits: createLimits(config, redis),
    score: createSpamScore(redis),
    relay,
    delivery: createDelivery(config.mail, log, relay),
    /** The owner's own sends (`outbox spam release`): no client's limits, no waiting as a visitor. */
    ownerDelivery: createDelivery(config.mail, log, relay, "owner"),
  };
}
