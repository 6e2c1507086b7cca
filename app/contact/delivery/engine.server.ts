// The engine: a visitor's post kept and claimed in the store before it is sent, the owner's commands on what is
// kept, and the background that sends the rest; it stores and schedules, the rulebook decides.
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AppConfig } from "~/config.server";
import { attempt, type AttemptParts } from "./attempt.server";
import { createBackground } from "./background.server";
import { EMAILJS_LIB_VERSION } from "./emailjs.server";
import { purged, type ContactLogger } from "../events.server";
import type { Notify } from "../alerts/notify.server";
import type { Admitted, Quotas } from "./port.server";
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
  visitorAnswer,
} from "../rules/rulebook.server";
import { ownerCommands } from "./owner-commands.server";
import type { Delivery, Engine, Sent } from "./port.server";
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

/** Without EmailJS ids: each message written to OUTBOX_DIR as a file, never mailed. */
async function writeToOutbox(dir: string, params: TemplateParams) {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.json`);
  const entry = { lib_version: EMAILJS_LIB_VERSION, template_params: params };
  // Visitors' addresses are personal data: owner-only permissions.
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

  /** Takes a place for it (a client's and the store's; spam pushes out its oldest), then stores it. */
  async function keep(message: Message, sender: Admitted | null): Promise<boolean> {
    const spam = message.for === "suspected_spam";
    let first = true;
    // A message that waits only for its slot leaves within seconds: it spends none of its client's places.
    if (sender && message.for !== "pace") {
      const allowance = await quotas.keep(sender, spam);
      if (!allowance) {
        log({ outcome: "not_kept", for: message.for, why: "client_full" });
        return false;
      }
      first = allowance.first;
    }
    try {
      // Taken in one statement, so posts at once never keep more than the limit.
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

  /** Not one another process is sending: rewriting it would free it to be sent a second time. */
  async function accountWaitersFollow() {
    const now = Date.now();
    for (const kept of await db.unclaimed(now)) {
      const message = seen(kept, now);
      const next = afterRefusal(message, now);
      if (next !== message) await db.put(next);
    }
    background.wake();
  }

  /** One try of a message this process holds, and its next state stored (or it forgotten, once sent). */
  async function tryHeld(message: Message, who: Sender, stopping?: () => boolean): Promise<Message | null> {
    if (!parts) throw new Error("the relay needs the EmailJS ids");
    const { next } = await attempt(message, who, parts, stopping);
    await settle(message, next);
    return next;
  }

  /** Its next state stored, or it forgotten once sent: a removal that fails is tried again, never sent again. */
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
      // The same message posted again while this process sends it: that post's answer is this one's too.
      const sending = inFlight.get(message.id);
      if (sending) {
        log({ outcome: "already_kept", for: "pace" });
        return sending;
      }
      // Taken as this post's before the store is asked: an identical post meanwhile shares its answer.
      const outcome = keepAndSend(message, now, sender, parts);
      inFlight.set(message.id, outcome);
      return outcome.finally(() => inFlight.delete(message.id));
    },
  };

  /**
   * Stored and held by this post while it is sent: an identical post after it is answered from its state and
   * never sends it a second time; a process that dies mid-send leaves it uncertain. A store that refuses it
   * sends nothing: the visitor keeps the text and is told to write otherwise.
   */
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

  /** The visitor's first try: sent, or kept in its next state (a place spent) and told so. */
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

  return {
    delivery,
    owner,
    start: background.start,
  };
}
