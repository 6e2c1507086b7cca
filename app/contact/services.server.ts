// The contact feature's one wiring root: every service, built once from the configuration (decision 049).
import type { AppConfig } from "~/config.server";
import { createBotChecks } from "./guard/proof.server";
import type { RetryOptions } from "./delivery/emailjs.server";
import { logContactEvent, type ContactLogger } from "./events.server";
import { createContactFlash } from "./action/flash.server";
import { createLimits, createRateLimiters } from "./guard/limits.server";
import { createNotify } from "./alerts/notify.server";
import { createEngine } from "./delivery/engine.server";
import { createRelay, relayParts } from "./delivery/relay.server";
import { createSpamScore } from "./guard/spam-score.server";
import { openPostgresStore } from "./store/postgres.server";
import { openSqliteStore } from "./store/sqlite.server";

export type ContactServices = Awaited<ReturnType<typeof createContactServices>>;

/** Throws a StoreError in one line when the store cannot be opened or read: the site never runs without it. */
export async function createContactServices(
  config: AppConfig,
  {
    toName,
    log = logContactEvent,
    retry,
    waitForStore = true,
  }: { toName: string; log?: ContactLogger; retry?: RetryOptions; waitForStore?: boolean },
) {
  const db = config.databaseUrl
    ? await openPostgresStore(config.databaseUrl, log, { wait: waitForStore })
    : await openSqliteStore(config.mail.outboxDir, log);
  const state = db.state;
  const { notify, settled } = createNotify(config, state, log);
  const parts = config.mail.mode === "relay" ? relayParts(config, state) : null;
  const waiting = async () => (await db.list()).filter(({ message }) => message.state === "waiting").length;
  const relay = parts && createRelay(config, parts, { log, notify, retry, waiting });
  const rateLimiters = createRateLimiters(config.databaseUrl);
  const limits = createLimits(config, rateLimiters.limiter);
  const engine = createEngine({ config, db, relay, notify, quotas: limits.quotas, log });
  return {
    config,
    toName,
    log,
    notify,
    settled,
    state,
    flash: createContactFlash(config.sessionSecret),
    proof: createBotChecks(config, db),
    limits,
    rateLimiters,
    score: createSpamScore(db),
    relay,
    engine,
    delivery: engine.delivery,
    store: db,
  };
}
