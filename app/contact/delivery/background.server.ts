// The background: what is due sent in its slot, a refusing store probed, retention and alerts every 30 s.
import type { AppConfig } from "~/config.server";
import { tellOwner, type Notify } from "../alerts/notify.server";
import { purged, type ContactLogger } from "../events.server";
import type { Message, Sender } from "../rules/message.server";
import { CLAIM_MS, expired, fairOrder, holdsTheRest, isDue, taken } from "../rules/rulebook.server";
import { StoreError, type Store } from "../store/store.server";
import type { Relay } from "./relay.server";

const TICK_MS = 30_000;
const LOOK_MS = 1_000;

type BackgroundParts = {
  config: AppConfig;
  db: Store;
  relay: Relay | null;
  notify: Notify;
  log: ContactLogger;
  tryHeld(message: Message, who: Sender, stopping: () => boolean): Promise<Message | null>;
};

export function createBackground({ config, db, relay, notify, log, tryHeld }: BackgroundParts) {
  let wake = () => {};

  async function sendDue(stopping: () => boolean) {
    if (db.health().state !== "ok" && !(await db.probe())) return;
    if (!relay) return;
    const refusing = (await relay.provider.read()).state === "refusing";
    for (const due of fairOrder(await db.due(Date.now()))) {
      if (stopping()) return;
      const probe = refusing && (await relay.provider.probeDue(config.providerProbeSeconds, due.id));
      const now = Date.now();
      const claimed = await db.claim(due.id, now, now + CLAIM_MS);
      if (!claimed) continue;
      const message = taken(claimed);
      if (!isDue(message, now)) {
        await db.put(message);
        continue;
      }
      const next = await tryHeld(message, probe ? "probe" : "redelivery", stopping);
      if (holdsTheRest(next)) return;
    }
  }

  async function housekeeping(now: number) {
    const all = (await db.list()).map((stored) => stored.message);
    const kept = all.filter((m) => !expired(m, now, config));
    for (const message of all.filter((m) => !kept.includes(m))) {
      await db.remove(message.id);
      log(purged(message, "expired", now));
    }
    await tellOwner(db.state, notify, kept, now, config);
  }

  function start() {
    let stopping = false;
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | null = null;
    let again = false;
    let lookedAt = 0;
    const schedule = (next: number | null) => {
      if (stopping) return;
      const wait = next === null ? LOOK_MS : Math.min(LOOK_MS, Math.max(0, next - Date.now()));
      clearTimeout(timer);
      timer = setTimeout(tick, wait).unref();
    };
    const tick = () => {
      if (running) {
        again = true;
        return;
      }
      running = (async () => {
        const now = Date.now();
        if (now - lookedAt >= TICK_MS) {
          lookedAt = now;
          await housekeeping(now);
        }
        await sendDue(() => stopping);
      })()
        // A store that refuses has said so once (its health); anything else is said as it comes.
        .catch((error: Error) => {
          if (!(error instanceof StoreError)) log({ outcome: "redelivery_error", error: error.message });
        })
        .then(() => db.nextDue().catch(() => null))
        .then((next) => {
          running = null;
          if (again && !stopping) {
            again = false;
            tick();
          } else schedule(next);
        });
    };
    wake = () => {
      if (!stopping) setImmediate(tick);
    };
    void Promise.all([db.count("kept"), db.count("spam")]).then(
      ([kept, spam]) => log({ outcome: "store_opened", where: db.where, kept, spam }),
      () => undefined,
    );
    tick();
    return {
      async stop() {
        stopping = true;
        clearTimeout(timer);
        await running;
      },
    };
  }

  return { start, wake: () => wake() };
}
