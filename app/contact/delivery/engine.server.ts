// The engine: a post kept and claimed in the store before it is sent; it stores and schedules, the rulebook decides.
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AppConfig } from "~/config.server";
import { attempt, type AttemptParts } from "./attempt.server";
import { createBackground } from "./background.server";
import { EMAILJS_LIB_VERSION } from "./emailjs.server";
import { purged, type ContactLogger } from "../events.server";
import type { Notify } from "../alerts/notify.server";
import { messageId, NOT_KEPT, type Message, type Sender, type TemplateParams } from "../rules/message.server";
import {
  afterRefusal,
  answerOf,
  CLAIM_MS,
  placeFor,
  placeLimit,
  received,
  seen,
  suspected,
  taken,
  takesClientPlace,
  visitorAnswer,
} from "../rules/rulebook.server";
import { ownerCommands } from "./owner-commands.server";
import type { Admitted, Delivery, Engine, Quotas, Sent } from "./port.server";
import type { Relay } from "./relay.server";
import { StoreError, type Store } from "../store/store.server";

export type EngineOptions = {
  config: AppConfig;
  db: Store;
  relay: Relay | null;
  notify: Notify;
  quotas: Quotas;
  log: ContactLogger;
};

async function writeToOutbox(dir: string, params: TemplateParams) {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.json`);
  const entry = { lib_version: EMAILJS_LIB_VERSION, template_params: params };
  await writeFile(file, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600, flag: "wx" });
}

export function createEngine({ config, db, relay, notify, quotas, log }: EngineOptions): Engine {
  const inFlight = new Map<string, Promise<Sent>>();
  const parts: AttemptParts | null = relay && {
    relay,
    quotas,
    rules: config,
    log,
    refusalEnded: async () => accountWaitersFollow(),
  };

  async function keep(message: Message, sender: Admitted | null): Promise<boolean> {
    const spam = message.for === "suspected_spam";
    let first = true;
    if (sender && takesClientPlace(message)) {
      const allowance = await quotas.keep(sender, spam);
      if (!allowance) {
        log({ outcome: "not_kept", for: message.for, why: "client_full" });
        return false;
      }
      first = allowance.first;
    }
    try {
      const limit = placeLimit(first, spam);
      let placed = await db.place(message, limit);
      const oldest =
        !placed && placeFor(limit, first, spam) === "evict_oldest" ? await db.oldestSpam() : null;
      if (oldest) {
        await db.remove(oldest.id);
        log(purged(oldest, "full", Date.now()));
        placed = await db.place(message, limit);
      }
      if (!placed) {
        log({ outcome: "not_kept", for: message.for, why: "full" });
        return false;
      }
    } catch {
      log({ outcome: "not_kept", for: message.for, why: "failed" });
      return false;
    }
    log({
      outcome: "kept",
      for: message.for,
      ...(message.failure ? { failure: message.failure, uncertain: message.uncertain } : {}),
      ...(message.signals ? { signals: message.signals } : {}),
    });
    background.wake();
    return true;
  }

  async function accountWaitersFollow() {
    // Only unclaimed ones: rewriting one another process sends would free it to be sent a second time.
    const now = Date.now();
    for (const kept of await db.unclaimed(now)) {
      const message = seen(kept, now);
      const next = afterRefusal(message, now);
      if (next !== message) await db.put(next);
    }
    background.wake();
  }

  async function tryHeld(message: Message, who: Sender, stopping?: () => boolean): Promise<Message | null> {
    if (!parts) throw new Error("the relay needs the EmailJS ids");
    const { next } = await attempt(message, who, parts, stopping);
    await settle(message, next);
    return next;
  }

  const settle = async (taken: Message, next: Message | null) => (next ? db.put(next) : db.forget(taken.id));

  const background = createBackground({ config, db, relay, notify, log, tryHeld });

  const delivery: Delivery = {
    async keepAsSpam(params, signals, sender) {
      try {
        if (await db.get(messageId(params))) return true;
      } catch {
        return false;
      }
      return keep(suspected(params, sender.network, signals, Date.now()), sender);
    },
    async send(params, sender) {
      if (config.mail.mode === "outbox") {
        log({ outcome: "accepted", transport: "outbox" });
        return writeToOutbox(config.mail.dir, params).then(
          () => ({ ok: true }) as const,
          () => ({ ok: false, status: 500, reason: "outbox_write_failed" }) as const,
        );
      }
      if (!parts) throw new Error("relay mode needs the relay");
      const now = Date.now();
      const message = received(params, sender.network, now);
      // Taken as this post's before the store is asked: an identical post meanwhile shares its answer.
      const sending = inFlight.get(message.id);
      if (sending) {
        log({ outcome: "already_kept", for: "pace" });
        return sending;
      }
      const outcome = keepAndSend(message, now, sender, parts);
      inFlight.set(message.id, outcome);
      return outcome.finally(() => inFlight.delete(message.id));
    },
  };

  async function keepAndSend(message: Message, now: number, sender: Admitted, tried: AttemptParts) {
    let kept: Message | null = null;
    try {
      const found = (await db.add(message, now + CLAIM_MS)) ? null : await db.get(message.id);
      kept = found && seen(found, now);
    } catch {
      log({ outcome: "not_kept", for: "pace", why: "failed" });
      return NOT_KEPT;
    }
    if (kept) {
      log({ outcome: "already_kept", for: kept.for });
      return answerOf(kept, kept.failure);
    }
    const sent = await sendOnce(message, sender, tried);
    if (sent === NOT_KEPT) db.forget(message.id);
    return sent;
  }

  async function sendOnce(message: Message, sender: Admitted, tried: AttemptParts): Promise<Sent> {
    log({ outcome: "accepted", transport: "relay" });
    let next: Message | null;
    try {
      ({ next } = await attempt(message, "visitor", tried));
    } catch (error) {
      // The budget or the pace could not be read or written: nothing was sent.
      if (!(error instanceof StoreError)) throw error;
      log({ outcome: "not_kept", for: "pace", why: "failed" });
      return NOT_KEPT;
    }
    if (!next) {
      db.forget(message.id);
      return { ok: true };
    }
    if (!(await keep(next, sender))) return NOT_KEPT;
    const answer = visitorAnswer(next);
    // The provider's failure, not the visitor's: the rate limit's unit goes back (decision 008).
    if (!answer.ok) await quotas.giveBack(sender);
    return answer;
  }

  const owner = ownerCommands(
    {
      where: db.where,
      health: db.health,
      list: async () => (await db.list()).map((kept) => seen(kept, Date.now())),
      get: async (id) => {
        const kept = await db.get(id);
        return kept && seen(kept, Date.now());
      },
      remove: (id) => db.remove(id),
      take: async (id) => {
        const now = Date.now();
        const claimed = await db.claim(id, now, now + CLAIM_MS);
        return claimed ? taken(claimed) : (await db.get(id)) ? "busy" : null;
      },
      settle,
      close: () => db.close(),
    },
    parts,
  );

  return { delivery, owner, start: background.start };
}
