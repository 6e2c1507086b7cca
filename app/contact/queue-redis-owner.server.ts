// The queue's side for the owner: their commands on kept messages, sent at once from the process that runs
// them (the CLI's or the page's), and the look after the queue: this instance's store moved in, retention,
// the alerts due. What follows each send is the rulebook's, as in the worker.
import type { Job, Queue } from "bullmq";
import type { AppConfig } from "~/config.server";
import type { Store } from "./store.server";
import { purged, type ContactLogger } from "./events.server";
import type { Quotas } from "./limits.server";
import type { Message } from "./message-state.server";
import { tellOwner, type Notify } from "./notify.server";
import type { Keeper } from "./owner-commands.server";
import type { Pacing, Relay } from "./relay.server";
import type { SharedState } from "./shared-state.server";
import { CLAIM_MS, expired, seen } from "./rulebook.server";

export type RedisEngineParts = {
  config: AppConfig;
  /** The relay, paced as given: by this queue's limiter in its worker, by waiting for a free slot elsewhere. */
  relay(pacing: Pacing, waiting: () => Promise<number>): Relay;
  /** This instance's store: where a message waits while Redis is away. */
  db: Store;
  state: SharedState;
  log: ContactLogger;
  notify: Notify;
  quotas: Quotas;
  /** What in Redis's settings would lose a kept message (RedisLink.risks). */
  risks(): Promise<string[]>;
};

const LOOK_MS = 30_000;
const SOON_MS = 1_000;
const LISTED = ["waiting", "prioritized", "delayed", "active", "failed"] as const;

type Parts = Omit<RedisEngineParts, "relay"> & {
  messages: Queue<Message>;
  held: Queue<Message>;
  file(message: Message): Promise<unknown>;
};

export function createRedisOwner(parts: Parts) {
  const { config, db, log, messages, held, file } = parts;

  const all = async (): Promise<Job<Message>[]> => {
    const jobs = await Promise.all([messages.getJobs([...LISTED]), held.getJobs(["waiting"])]);
    return jobs.flat().filter(Boolean);
  };
  /** Held first: a message the worker set aside is done in the main queue. */
  const find = async (id: string) => (await held.getJob(id)) ?? (await messages.getJob(id));

  /** The queue lent to the owner's commands: a message taken out (no worker sends it meanwhile) waits in this instance's store until it is filed again. */
  const keeper: Keeper = {
    engine: "redis",
    where: "the queue",
    health: db.health,
    list: async () => (await all()).map((job) => job.data).sort((a, b) => a.receivedAt - b.receivedAt),
    get: async (id) => (await find(id))?.data ?? null,
    async remove(id) {
      const job = await find(id);
      await job?.remove();
      return job !== null;
    },
    async take(id) {
      const job = await find(id);
      if (!job) return null;
      const now = Date.now();
      await db.add(job.data, now + CLAIM_MS);
      try {
        // Fails on a job a worker holds, or one sent and so gone meanwhile: never sent twice.
        await job.remove();
        return job.data;
      } catch {
        await db.remove(job.data.id);
        return (await messages.getJob(id)) ? "busy" : null;
      }
    },
    async settle(taken, next) {
      if (next) await file(next);
      db.forget(taken.id);
    },
    close: async () => {},
  };

  /** Moves this instance's store into the queue, deletes what is past CONTACT_KEEP_DAYS, tells the owner once. */
  async function look() {
    const moved = (await db.unclaimed(Date.now())).map((kept) => seen(kept, Date.now()));
    for (const message of moved) {
      await file(message.for === "queue" ? { ...message, for: "pace", nextAttempt: Date.now() } : message);
      await db.remove(message.id);
    }
    if (moved.length) log({ outcome: "imported", count: moved.length });
    const now = Date.now();
    const jobs = await all();
    for (const job of jobs.filter((job) => expired(job.data, now, config))) {
      await job.remove();
      log(purged(job.data, "expired", now));
    }
    const kept = jobs.filter((job) => !expired(job.data, now, config)).map((job) => job.data);
    await tellOwner(parts.state, parts.notify, kept, now, config);
  }

  /**
   * The look, now and every LOOK_MS; every second until Redis first answers, and after `soon` (a message this
   * instance's store kept while Redis was away moves in as soon as Redis is back).
   */
  function lookAfter(ready: () => boolean) {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<unknown> | null = null;
    let stopping = false;
    let risksTold = false;
    let hurry = false;
    const next = (ms: number) => {
      clearTimeout(timer);
      if (!stopping) timer = setTimeout(tick, ms).unref();
    };
    const tick = () => {
      hurry = false;
      running = (async () => {
        if (!ready()) return false;
        if (!risksTold) {
          risksTold = true;
          const risks = await parts.risks();
          if (risks.length) {
            console.warn(
              `[contact] Redis ${risks.join(" and ")}: kept messages could be lost. Run it with appendonly yes and maxmemory-policy noeviction.`,
            );
          }
        }
        await look();
        return true;
      })()
        .catch((error: Error) => {
          log({ outcome: "redelivery_error", error: error.message });
          return false;
        })
        .then((done) => {
          running = null;
          next(done && !hurry ? LOOK_MS : SOON_MS);
        });
    };
    tick();
    return {
      soon() {
        hurry = true;
        if (!running) next(SOON_MS);
      },
      async stop() {
        stopping = true;
        clearTimeout(timer);
        await running;
      },
    };
  }

  return { keeper, lookAfter };
}
