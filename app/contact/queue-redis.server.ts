// Every message a job in one BullMQ queue on Redis: any number of instances, no shared disk. BullMQ paces the
// provider for all workers together and schedules each wait; what follows each try is the rulebook's.
import { DelayedError, Queue, Worker, type Job } from "bullmq";
import Redis from "ioredis";
import { setTimeout as sleep } from "node:timers/promises";
import type { Admitted } from "./limits.server";
import { NOT_KEPT, type Message } from "./message-state.server";
import type { Delivery, Engine, Sent } from "./queue.server";
import { attempt } from "./attempt.server";
import { purged } from "./events.server";
import { ownerCommands } from "./owner-commands.server";
import { createRedisOwner, type RedisEngineParts } from "./queue-redis-owner.server";
import { jobAnswers, PACE } from "./queue-redis-answers.server";
import {
  afterAttempt,
  afterRefusal,
  answerOf,
  placeFor,
  received,
  suspected,
  visitorAnswer,
} from "./rulebook.server";

const PREFIX = "portfolio";
/** Waiting messages, each a job scheduled for its next try; held and given-up ones wait for the owner apart. */
const MESSAGES = "contact";
const HELD = "contact-held";

const ADD_TIMEOUT_MS = 2_000;
/** BullMQ's close waits for Redis for ever: past this, what is left is cut (a job in hand takes at most 3 s). */
const CLOSE_MS = 5_000;

/** `work`, or a "timeout" error after `ms` (the timer does not hold the process open). */
const withTimeout = <T>(work: Promise<T>, ms: number) =>
  Promise.race([
    work,
    sleep(ms, null, { ref: false }).then<never>(() => Promise.reject(new Error("timeout"))),
  ]);

export function createRedisEngine(redisUrl: string, parts: RedisEngineParts): Engine {
  const { config, log, db } = parts;
  // Adds fail at once while Redis is away (the visitor's message then waits in this instance's store).
  const connection = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  connection.on("error", () => undefined);
  // Workers and event readers block: BullMQ wants them to wait for Redis rather than fail.
  const blockingConnections: Redis[] = [];
  const blocking = () => {
    const opened = new Redis(redisUrl, { maxRetriesPerRequest: null });
    opened.on("error", () => undefined);
    blockingConnections.push(opened);
    return opened;
  };
  const opts = { connection, prefix: PREFIX };
  const messages = new Queue<Message>(MESSAGES, opts);
  const held = new Queue<Message>(HELD, opts);
  for (const queue of [messages, held]) queue.on("error", () => undefined);
  const intervalMs = Math.ceil((1_000 / config.maxPerSecond) * 1.1);
  const waiting = () => messages.getJobCountByTypes("waiting", "prioritized", "delayed");
  // In the worker, the limiter's window counts from a job's start; restarted as its request leaves, the next
  // one leaves a whole interval after it however long the job took to get there. A longer pause (a 429) stays.
  const relay = parts.relay(
    {
      slot: async () => {
        if ((await messages.getRateLimitTtl(1)) < intervalMs) await messages.rateLimit(intervalMs);
        return true;
      },
      pause: (ms) => messages.rateLimit(ms),
    },
    waiting,
  );
  // The owner's sends, from any process: each takes the limiter's window when it is free, in one step (SET NX,
  // the value `rateLimit` writes), so a worker's job cannot start between the look and the take.
  const takeWindow = async () =>
    (await connection.set(messages.keys.limiter!, Number.MAX_SAFE_INTEGER, "PX", intervalMs, "NX")) === "OK";
  const ownerRelay = parts.relay(
    {
      async slot(_who, maxWaitMs) {
        const deadline = Date.now() + maxWaitMs;
        while (!(await takeWindow())) {
          const ttl = Math.max(await messages.getRateLimitTtl(1), 1);
          if (Date.now() + ttl > deadline) return false;
          await sleep(Math.min(ttl, 250));
        }
        return true;
      },
      pause: (ms) => messages.rateLimit(ms),
    },
    waiting,
  );

  /** One message per network per round: its first waiting message goes first, its second in the next round. */
  const roundKey = (network: string) => `${PREFIX}:${MESSAGES}:round:${network}`;
  async function round(network: string): Promise<number> {
    const [[, value]] = (await connection
      .multi()
      .incr(roundKey(network))
      .expire(roundKey(network), 86_400)
      .exec()) as [[Error | null, number]];
    return Math.min(value, 2 ** 21 - 1);
  }
  const leftRound = (network: string) => connection.decr(roundKey(network)).catch(() => 0);

  /** A message where its state puts it: waiting, a job due at its next try; held or given up, apart. */
  async function file(message: Message) {
    // BullMQ's types take the union of states for `never`; the data is the rulebook's Message as it is.
    const data = message as never;
    if (message.state !== "waiting") return held.add("held", data, { jobId: message.id });
    return messages.add("message", data, {
      jobId: message.id,
      priority: await round(message.network),
      delay: Math.max(0, (message.nextAttempt ?? 0) - Date.now()),
      // Only a fault of our own (Redis, a bug) fails a job: the rulebook's waits are delays.
      attempts: 5,
      backoff: { type: "exponential", delay: 10_000 },
      // Sent is done: forgotten at once, as on the store (the same text posted later is a new message).
      removeOnComplete: true,
      removeOnFail: false,
    });
  }

  /** The account's refusal ended: what waited for it follows at the pace. */
  async function accountWaitersFollow() {
    for (const job of await messages.getJobs(["delayed"])) {
      const next = job && afterRefusal(job.data, Date.now());
      if (next && next !== job.data) await job.updateData(next as never).then(() => job.promote());
    }
  }

  // Visitors wait on their own job's events.
  const answers = jobAnswers(messages, blocking());

  /** Visitors' jobs not yet answered: not counted in the places until they are known to be kept. */
  const INFLIGHT = `${PREFIX}:${MESSAGES}:answering`;
  const INFLIGHT_MS = 60_000;
  /** "0" while EmailJS fails or holds back what the worker last tried ("1": it took it); a 429 tells nothing. */
  const MAILING = `${PREFIX}:${MESSAGES}:mailing`;

  const delivery: Delivery = {
    async send(params, sender) {
      const message = received(params, sender.network, Date.now());
      const { id } = message;
      const waiting = answers.stepOf(id);
      try {
        // Held for the owner: answered from there, never sent again by a re-post. Both asked at once.
        const [setAside, existing] = await withTimeout(
          Promise.all([held.getJob(id), messages.getJob(id)]),
          ADD_TIMEOUT_MS,
        );
        const failed = existing && (await existing.getState()) === "failed";
        const kept = setAside?.data ?? (failed ? null : existing?.data);
        if (kept) {
          log({ outcome: "already_kept", for: kept.for });
          // Its first try is still to come or under way: this visitor is told its outcome too.
          if (kept.for === "pace" && kept.attempts === 0 && !setAside) return await waiting.step;
          waiting.stop();
          return answerOf(kept, kept.failure);
        }
        await existing?.remove();
        await withTimeout(connection.zadd(INFLIGHT, Date.now(), id), ADD_TIMEOUT_MS);
        await withTimeout(file(message), ADD_TIMEOUT_MS);
      } catch {
        waiting.stop();
        return spool(message);
      }
      log({ outcome: "accepted", transport: "relay" });
      try {
        // The account is refused: the job waits for the owner's fix, and the visitor is told so at once.
        const provider = await relay.provider.read().catch(() => null);
        if (provider?.state === "refusing") waiting.stop();
        const seen =
          provider?.state === "refusing"
            ? answerOf({ state: "waiting", for: "account" })
            : await waiting.step;
        // Behind its slot while EmailJS is known to fail: its visitor hears that failure, as on every engine.
        const known = seen === PACE ? await relay.provider.knownFailure().catch(() => null) : null;
        const paced = { ok: false, waiting: "pace" } as const;
        const told = known ? visitorAnswer(afterAttempt(message, paced, Date.now(), config, known)) : seen;
        // Redis lost since the add: the message was accepted, and the visitor hears what is known of it.
        return await keptOrNot(message, told, sender).catch(() => told);
      } finally {
        await connection.zrem(INFLIGHT, id).catch(() => 0);
      }
    },
    async keepAsSpam(params, signals, sender) {
      const message = suspected(params, sender.network, signals, Date.now());
      try {
        if (await held.getJob(message.id)) return true;
        if (!(await parts.quotas.keep(sender, true))) return false;
        const spam = (await held.getJobs(["wait"], 0, -1, true)).filter(
          (job) => job?.data.for === "suspected_spam",
        );
        // A full spam place makes room: the oldest suspected spam goes.
        if (placeFor(spam.length, true, true) === "evict_oldest" && spam[0]) {
          await spam[0].remove();
          log(purged(spam[0].data, "full", Date.now()));
        }
        await withTimeout(file(message), ADD_TIMEOUT_MS);
        log({ outcome: "kept", for: "suspected_spam", signals });
        return true;
      } catch {
        log({ outcome: "not_kept", for: "suspected_spam", why: "failed" });
        return false;
      }
    },
  };

  /**
   * Not sent yet: kept within what one client may leave and the queue's places (decision 024), or dropped.
   * Only behind others for its pace slot while EmailJS takes mail, it is not kept: it spends no place.
   */
  async function keptOrNot(message: Message, told: Sent, sender: Admitted): Promise<Sent> {
    if (told.ok && !told.waiting) return told;
    if (told.ok && told.waiting === "pace" && (await connection.get(MAILING)) !== "0") return told;
    const allowance = await parts.quotas.keep(sender, false);
    const answering = await connection.zcount(INFLIGHT, Date.now() - INFLIGHT_MS, "+inf");
    const kept = (await waiting()) + (await messages.getActiveCount()) - answering;
    if (!allowance || placeFor(kept, allowance.first, false) === "full") {
      if ((await messages.remove(message.id).catch(() => 0)) === 1) void leftRound(message.network);
      log({ outcome: "not_kept", for: "pace", why: allowance ? "full" : "client_full" });
      return NOT_KEPT;
    }
    // The provider's failure, not the visitor's: the rate limit's unit goes back (decision 008).
    if (!told.ok) await parts.quotas.giveBack(sender);
    return told;
  }

  let lookSoon = () => {}; // set by `start`
  /** Redis away: this instance's store keeps it, and the look moves it into the queue once Redis is back. */
  async function spool(message: Message): Promise<Sent> {
    try {
      if (!(await db.add({ ...message, state: "waiting", for: "queue" }))) throw new Error("not kept");
      log({ outcome: "kept", for: "queue" });
      lookSoon();
      return { ok: true, waiting: "queue" };
    } catch {
      log({ outcome: "not_kept", for: "queue", why: "failed" });
      return NOT_KEPT;
    }
  }

  // The worker: one per instance; BullMQ's limiter is the provider's rate for all of them together.
  async function deliver(job: Job<Message>, token?: string): Promise<Sent> {
    // While the account is refused, one waiting message at a time is the probe; the rest wait for it.
    const refusing = (await relay.provider.read()).state === "refusing";
    const probe = refusing && (await relay.provider.probeDue(config.providerProbeSeconds, job.id));
    const { sent, next } = await attempt(job.data, probe ? "probe" : "redelivery", workerParts);
    if (sent && (sent.ok || (sent.waiting ? sent.waiting !== "pace" : sent.status !== 429)))
      await connection.set(MAILING, sent.ok ? "1" : "0").catch(() => null);
    // Too many requests: the queue's limiter holds every worker back, and this message keeps its place.
    if (sent && !sent.ok && !sent.waiting && sent.status === 429) throw Worker.RateLimitError();
    if (!next) return { ok: true };
    if (next.state !== "waiting") {
      await file(next);
      return answerOf(next, next.failure);
    }
    await job.updateData(next as never);
    await job.moveToDelayed(next.nextAttempt ?? Date.now(), token);
    throw new DelayedError();
  }

  const attemptParts = { quotas: parts.quotas, rules: config, log, refusalEnded: accountWaitersFollow };
  const workerParts = { ...attemptParts, relay };
  const owner = createRedisOwner({ ...parts, messages, held, file });
  const ownerPort = ownerCommands(owner.keeper, { ...attemptParts, relay: ownerRelay });
  const close = async () => {
    const cut = () => [connection, ...blockingConnections].forEach((opened) => opened.disconnect());
    // Redis away: nothing is left to finish with it, and BullMQ would wait for it for ever.
    if (connection.status !== "ready") cut();
    await withTimeout(Promise.all([messages.close(), held.close(), answers.close()]), CLOSE_MS).catch(
      () => undefined,
    );
    cut();
  };

  return {
    delivery,
    owner: { ...ownerPort, close },
    start() {
      const worker = new Worker<Message, Sent>(MESSAGES, deliver, {
        connection: blocking(),
        prefix: PREFIX,
        concurrency: 1,
        limiter: { max: 1, duration: intervalMs },
      });
      worker.on("error", (error) => log({ outcome: "redelivery_error", error: error.message }));
      worker.on("completed", (job) => void leftRound(job.data.network));
      const looking = owner.lookAfter(() => connection.status === "ready");
      lookSoon = looking.soon;
      return {
        async stop() {
          await looking.stop();
          // Redis away: the job in hand cannot be finished, it is left to the next start (stalled).
          await withTimeout(worker.close(connection.status !== "ready"), CLOSE_MS).catch(() => undefined);
          await close();
        },
      };
    },
  };
}
