// Every message a job in one BullMQ queue on Redis: any number of instances, no shared disk. BullMQ paces the
// provider for all workers together, retries with the redelivery backoff and keeps what is held (decision 053).
import { rm } from "node:fs/promises";
import { DelayedError, Queue, QueueEvents, UnrecoverableError, Worker, type Job, type JobType } from "bullmq";
import Redis from "ioredis";
import type { AppConfig } from "~/config.server";
import type { ContactFailureReason } from "./contract";
import type { TemplateParams } from "./emailjs.server";
import type { ContactLogger } from "./events.server";
import { tellOwner, type Notify } from "./housekeeping.server";
import {
  answerOf,
  failureOf,
  messageId,
  NOT_KEPT,
  redeliveryBackoffSeconds,
  REFUSING,
  type HeldFor,
  type Kept,
  type KeptState,
  type WaitingFor,
} from "./message-state.server";
import type { Admitted, Quotas } from "./limits.server";
import type { Delivery, Engine, OwnerPort, Sent, SendNow } from "./queue.server";
import { providerWords } from "./provider.server";
import { notSentWords, type Pacing, type Relay, type Sender } from "./relay.server";
import type { SharedState } from "./shared-state.server";
import {
  listUndelivered,
  RESERVED_FOR_NEW_CLIENTS,
  storeUndelivered,
  UNDELIVERED_LIMIT,
  type UndeliveredEntry,
} from "./store.server";

const PREFIX = "portfolio";
const MESSAGES = "contact";
const HELD = "contact-held";

type JobData = {
  params: TemplateParams;
  network: string;
  receivedAt: string;
  since: string;
  waitingFor?: WaitingFor;
  heldFor?: HeldFor;
  uncertain?: boolean;
  /** A unit of the send budget, or of the network's share, is spent on it: sending again spends none. */
  counted?: boolean;
  networkCounted?: boolean;
  providerText?: string;
  signals?: string[];
  /** The owner's test message: tried once, even while the account is refused. */
  test?: boolean;
  /** When it is due again, once it waits (as BullMQ was told: a delay, or the backoff). */
  nextAttempt?: number;
  /** The provider's last failure, as a visitor is told it. */
  failure?: { status: number; reason: ContactFailureReason };
};

/** What the worker tells a waiting visitor after each attempt. */
type Step =
  | { state: "sent" }
  | { state: "waiting"; for: WaitingFor; failure?: { status: number; reason: ContactFailureReason } }
  | { state: "held"; for: "refused_by_provider" };

/** A visitor waits this long for its job to start, then is answered from its state (it goes on in the background). */
const VISITOR_START_MS = 800;
const VISITOR_STEP_MS = 12_000;
/** The owner's commands wait this long for a message they moved. */
const OWNER_WAIT_MS = 24_000;
const ADD_TIMEOUT_MS = 2_000;
const TICK_MS = 30_000;
const DONE_KEPT_S = 3_600;

export type RedisEngineParts = {
  config: AppConfig;
  /** The relay, paced by this queue: BullMQ's limiter, and a provider's Retry-After as the queue's pause. */
  relay(pacing: Pacing, waiting: () => Promise<number>): Relay;
  state: SharedState;
  log: ContactLogger;
  notify: Notify;
  quotas: Quotas;
  /** What in Redis's settings would lose a kept message (RedisLink.risks). */
  risks(): Promise<string[]>;
};

/** How many failed sends the backoff fits in CONTACT_REDELIVER_FOR_HOURS: the give-up clock counts only tries. */
export function attemptsWithin(settings: AppConfig["redelivery"]): number {
  let total = 0;
  let attempts = 1;
  while (total < settings.forHours * 3_600)
    total += redeliveryBackoffSeconds(attempts++ - 1, false, settings);
  return attempts;
}

export function createRedisEngine(redisUrl: string, parts: RedisEngineParts): Engine {
  const { config, log } = parts;
  // Adds fail at once while Redis is away (the visitor's message then goes to this instance's disk).
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
  const messages = new Queue<JobData>(MESSAGES, opts);
  const held = new Queue<JobData>(HELD, opts);
  messages.on("error", () => undefined);
  held.on("error", () => undefined);
  let risksTold = false;
  const intervalMs = Math.ceil((1_000 / config.maxPerSecond) * 1.1);
  // The limiter's window counts from a job's start; restarted as its request leaves, the next one leaves a
  // whole interval after it however long the job took to get there. A longer pause (a 429) stays.
  const slot = async () => {
    if ((await messages.getRateLimitTtl(1)) < intervalMs) await messages.rateLimit(intervalMs);
    return true;
  };
  const relay = parts.relay({ slot, pause: (ms) => messages.rateLimit(ms) }, () =>
    messages.getJobCountByTypes("waiting", "prioritized", "delayed"),
  );
  const jobOptions = (priority: number) => ({
    attempts: attemptsWithin(config.redelivery),
    backoff: { type: "redelivery" },
    priority,
    removeOnComplete: { age: DONE_KEPT_S },
    removeOnFail: false,
  });

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

  const enqueue = async (data: JobData, id: string) =>
    messages.add("message", data, { ...jobOptions(await round(data.network)), jobId: id });

  async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), ms);
    });
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  // Visitors wait on their own job's events, from whichever instance's worker runs it.
  const events = new QueueEvents(MESSAGES, { connection: blocking(), prefix: PREFIX });
  events.on("error", () => undefined);
  const waiters = new Map<string, (step: Step | "active") => void>();
  // A step is told once the job has left `active`, so the visitor's answer may still remove it.
  const stepFromJob = async (jobId: string): Promise<Step> => {
    const data = (await messages.getJob(jobId).catch(() => null))?.data;
    return {
      state: "waiting",
      for: data?.waitingFor ?? "pace",
      ...(data?.failure ? { failure: data.failure } : {}),
    };
  };
  const tell = (jobId: string, step: Step | Promise<Step> | "active") => {
    const waiter = waiters.get(jobId);
    if (waiter) void Promise.resolve(step).then(waiter);
  };
  events.on("active", ({ jobId }) => tell(jobId, "active"));
  events.on("completed", ({ jobId, returnvalue }) =>
    tell(jobId, (returnvalue as unknown as Step | undefined) ?? { state: "sent" }),
  );
  events.on("delayed", ({ jobId }) => waiters.has(jobId) && tell(jobId, stepFromJob(jobId)));
  events.on("failed", ({ jobId }) => waiters.has(jobId) && tell(jobId, stepFromJob(jobId)));
  events.on(
    "waiting",
    ({ jobId, prev }) => prev === "active" && tell(jobId, { state: "waiting", for: "pace" }),
  );

  /**
   * What becomes of a job: its step, or "waiting for the pace" when it has not started within `startMs`
   * or not ended within `stepMs` of its start. Registered before the job is added or moved, so no event is missed.
   */
  function stepOf(id: string, startMs = VISITOR_START_MS, stepMs = VISITOR_STEP_MS): Promise<Step> {
    return new Promise((resolve) => {
      const done = (step: Step) => {
        clearTimeout(timer);
        waiters.delete(id);
        resolve(step);
      };
      let timer = setTimeout(() => done({ state: "waiting", for: "pace" }), startMs);
      waiters.set(id, (step) => {
        if (step !== "active") return done(step);
        clearTimeout(timer);
        timer = setTimeout(() => done({ state: "waiting", for: "pace" }), stepMs);
      });
    });
  }

  /** Visitors' jobs not yet answered: not counted in the places until they are known to be kept. */
  const INFLIGHT = `${PREFIX}:${MESSAGES}:answering`;
  const INFLIGHT_MS = 60_000;

  const delivery: Delivery = {
    async send(params, sender) {
      const id = messageId(params);
      const now = new Date().toISOString();
      const data: JobData = { params, network: sender.network, receivedAt: now, since: now };
      const step = stepOf(id);
      try {
        // Held for the owner: answered from there, never sent again by a re-post. Both asked at once.
        const [setAside, existing] = await withTimeout(
          Promise.all([held.getJob(id), messages.getJob(id)]),
          ADD_TIMEOUT_MS,
        );
        if (setAside) {
          waiters.delete(id);
          log({ outcome: "already_kept", for: setAside.data.heldFor ?? "suspected_spam" });
          return answerOf(kept(setAside, "waiting"));
        }
        const state = existing && (await existing.getState());
        if (existing && state !== "failed") {
          waiters.delete(id);
          log({ outcome: "already_kept", for: existing.data.waitingFor ?? "pace" });
          if (state === "completed") return { ok: true };
          return answerOf(kept(existing, state ?? "unknown"), existing.data.failure?.reason);
        }
        await existing?.remove();
        await withTimeout(connection.zadd(INFLIGHT, Date.now(), id), ADD_TIMEOUT_MS);
        await withTimeout(enqueue(data, id), ADD_TIMEOUT_MS);
      } catch {
        waiters.delete(id);
        return spool(params, data.network);
      }
      log({ outcome: "accepted", transport: "relay" });
      try {
        // The account is refused: the job waits for the owner's fix, and the visitor is told so at once.
        const refusing = (await relay.provider.read().catch(() => null))?.state === "refusing";
        if (refusing) waiters.delete(id);
        return await keptOrNot(
          id,
          data,
          refusing ? { state: "waiting", for: "account" } : await step,
          sender,
        );
      } finally {
        await connection.zrem(INFLIGHT, id).catch(() => 0);
      }
    },
    async keepAsSpam(params, signals, sender) {
      const now = new Date().toISOString();
      const data = { params, network: sender.network, receivedAt: now, since: now, signals };
      try {
        if (!(await parts.quotas.keep(sender, true))) return false;
        // A full spam queue makes room: the oldest suspected spam goes.
        if ((await held.getWaitingCount()) >= UNDELIVERED_LIMIT) {
          const [oldest] = await held.getJobs(["wait"], 0, 0, true);
          if (oldest) {
            await oldest.remove();
            const ageDays = Math.floor((Date.now() - oldest.timestamp) / 86_400_000);
            log({ outcome: "purged", folder: "queue", reason: "folder_full", ageDays });
          }
        }
        await withTimeout(
          held.add("held", { ...data, heldFor: "suspected_spam" }, { jobId: messageId(params) }),
          ADD_TIMEOUT_MS,
        );
        log({ outcome: "kept", for: "suspected_spam", signals, stored: "new" });
        return true;
      } catch {
        log({ outcome: "kept", for: "suspected_spam", signals, stored: "failed" });
        return false;
      }
    },
  };

  /** Not sent yet: kept within what one client may leave and the queue's places (decision 024), or dropped. */
  async function keptOrNot(id: string, data: JobData, seen: Step, sender: Admitted): Promise<Sent> {
    if (seen.state === "sent") return { ok: true };
    const allowance = await parts.quotas.keep(sender, false);
    const places =
      allowance && allowance.first ? UNDELIVERED_LIMIT : UNDELIVERED_LIMIT - RESERVED_FOR_NEW_CLIENTS;
    const answering = await connection.zcount(INFLIGHT, Date.now() - INFLIGHT_MS, "+inf");
    if (!allowance || (await messages.getJobCountByTypes(...KEPT_STATES)) - answering >= places) {
      if ((await messages.remove(id).catch(() => 0)) === 1) void leftRound(data.network);
      const stored = allowance ? "full" : "client_full";
      log({ outcome: "kept", for: seen.for, stored });
      return NOT_KEPT;
    }
    const answer = answerOf(seen, seen.state === "waiting" ? seen.failure?.reason : undefined);
    // The provider's failure, not the visitor's: the rate limit's unit goes back (decision 008).
    if (!answer.ok) await parts.quotas.giveBack(sender);
    return answer;
  }

  /** Redis away: this instance's disk keeps it, and the next tick moves it into the queue. */
  async function spool(params: TemplateParams, network: string) {
    const keptAs = { for: "queue" as const, uncertain: false, upstreamStatus: 0, network };
    try {
      const stored = await storeUndelivered(config.mail.undeliveredDir, params, keptAs);
      log({ outcome: "kept", for: "queue", stored });
      return stored === "new" || stored === "existing" ? ({ ok: true, waiting: "queue" } as const) : NOT_KEPT;
    } catch {
      return NOT_KEPT;
    }
  }

  /** A job as the owner sees it; `state` as BullMQ listed it (failed: given up). */
  function kept(job: Job<JobData>, state: string): Kept {
    const d = job.data;
    const keptState: KeptState = d.heldFor
      ? { state: "held", for: d.heldFor }
      : state === "failed"
        ? { state: "given_up", for: d.waitingFor ?? "provider" }
        : { state: "waiting", for: d.waitingFor ?? "pace" };
    return {
      ...keptState,
      id: job.id!,
      params: d.params,
      receivedAt: d.receivedAt,
      since: state === "failed" && job.finishedOn ? new Date(job.finishedOn).toISOString() : d.since,
      attempts: job.attemptsMade,
      nextAttempt: state === "delayed" && d.nextAttempt ? new Date(d.nextAttempt).toISOString() : null,
      uncertain: Boolean(d.uncertain),
      ...(d.providerText ? { providerText: d.providerText } : {}),
      ...(d.signals ? { signals: d.signals } : {}),
    };
  }

  // The worker: one per instance; BullMQ's limiter is the provider's rate for all of them together.
  async function deliver(job: Job<JobData>, token?: string): Promise<Step> {
    const d = job.data;
    const later = async (
      at: number,
      waitingFor: WaitingFor,
      extra: Partial<JobData> = {},
    ): Promise<never> => {
      await job.updateData({ ...d, ...extra, waitingFor, nextAttempt: at });
      await job.moveToDelayed(at, token);
      throw new DelayedError();
    };
    let who: Sender = d.test ? "owner" : "redelivery";
    if (!d.test && (await relay.provider.read()).state === "refusing") {
      if (!(await relay.provider.probeDue(config.providerProbeSeconds, job.id))) {
        return later(Date.now() + config.providerProbeSeconds * 1_000, "account");
      }
      who = "probe";
    }
    if (!d.networkCounted && !d.test) {
      const share = await parts.quotas.networkShare(d.network);
      if (!share.ok) return later(Date.now() + share.retryMs, "network_share");
    }
    const sent = await relay.send(d.params, { who, counted: d.counted });
    const spent = { networkCounted: true, counted: d.counted || (!sent.ok && !sent.waiting && sent.counted) };
    if (sent.ok) return { state: "sent" };
    // The owner's test is tried once: what stopped it is its answer, never a later mail.
    if (d.test) {
      const why = notSentWords(sent);
      await job.updateData({ ...d, providerText: why });
      throw new UnrecoverableError(why);
    }
    if (sent.waiting === "day_limit" || sent.waiting === "month_limit") {
      const { day, month } = await relay.budget.usage();
      const turns = sent.waiting === "day_limit" ? day.turnsAt : month.turnsAt;
      return later(turns.getTime(), sent.waiting, spent);
    }
    if (sent.waiting) return later(Date.now() + config.providerProbeSeconds * 1_000, "account", spent);
    const providerText = providerWords(sent.text);
    if (sent.status === 429) {
      await job.updateData({ ...d, ...spent, waitingFor: "pace" });
      throw Worker.RateLimitError();
    }
    if (sent.hint) {
      const failure = REFUSING;
      return later(Date.now() + config.providerProbeSeconds * 1_000, "account", {
        ...spent,
        providerText,
        failure,
      });
    }
    if (sent.refusedForItself) {
      const heldFor = "refused_by_provider";
      await held.add(
        "held",
        { ...d, ...spent, heldFor, providerText, since: new Date().toISOString() },
        { jobId: job.id },
      );
      log({ outcome: "kept", for: heldFor, stored: "new" });
      return { state: "held", for: heldFor };
    }
    const uncertain = Boolean(d.uncertain) || sent.uncertain;
    const waitingFor = uncertain ? "uncertain" : "provider";
    const backoff = redeliveryBackoffSeconds(job.attemptsMade, uncertain, config.redelivery) * 1_000;
    const failure = failureOf(sent);
    const nextAttempt = Date.now() + backoff;
    await job.updateData({ ...d, ...spent, uncertain, waitingFor, providerText, failure, nextAttempt });
    throw new Error(failure.reason);
  }

  const owner: OwnerPort = {
    engine: "redis",
    where: "the queue",
    async list() {
      // One listing a state: the state is known without asking Redis for each job's.
      const listing = async (queue: Queue<JobData>, state: JobType) =>
        (await queue.getJobs([state])).filter((job) => job && !job.data.test).map((job) => kept(job, state));
      const listed = await Promise.all([
        ...(["waiting", "prioritized", "delayed", "active", "failed"] as const).map((state) =>
          listing(messages, state),
        ),
        listing(held, "waiting"),
      ]);
      const all = listed.flat().sort((a, b) => a.receivedAt.localeCompare(b.receivedAt));
      return { messages: all, skipped: [] };
    },
    async get(id) {
      // Held first: a job the worker set aside is done in the main queue too.
      const job = (await held.getJob(id)) ?? (await messages.getJob(id));
      const state = job && (await job.getState());
      return job && state !== "completed" ? kept(job, state ?? "unknown") : null;
    },
    async remove(id) {
      const job = (await held.getJob(id)) ?? (await messages.getJob(id));
      if (!job) return false;
      await job.remove();
      return true;
    },
    async release(id) {
      const job = await held.getJob(id);
      if (!job) return null;
      const { heldFor: _, ...data } = job.data;
      await messages.remove(id).catch(() => 0);
      return outcomeOf(id, async () => {
        await enqueue({ ...data, since: new Date().toISOString(), waitingFor: "pace" }, id);
        await job.remove();
      });
    },
    async sendNow(id) {
      const job = await messages.getJob(id);
      if (!job) return null;
      const state = await job.getState();
      return outcomeOf(id, async () => {
        if (state === "failed") await job.retry("failed", { resetAttemptsMade: true });
        else if (state === "delayed") await job.promote();
      });
    },
    async resend(each) {
      const { messages: all } = await owner.list();
      for (const message of all.filter((kept) => kept.state !== "held")) {
        each(message, (await owner.sendNow(message.id)) ?? { sent: false, kept: null });
      }
      return { skipped: [] };
    },
    async test(params) {
      const id = `test-${Date.now()}`;
      const now = new Date().toISOString();
      return outcomeOf(id, () =>
        messages.add(
          "test",
          { params, network: "owner", receivedAt: now, since: now, test: true },
          { jobId: id, priority: 1, attempts: 1, removeOnComplete: true, removeOnFail: { age: 3_600 } },
        ),
      );
    },
    close: async () => {
      await Promise.all([messages.close(), held.close(), events.close()]);
      for (const opened of [connection, ...blockingConnections]) opened.disconnect();
    },
  };

  /** Does `act` on a job and waits for what becomes of it, as the owner's commands report it. */
  async function outcomeOf(id: string, act: () => Promise<unknown>): Promise<SendNow> {
    const step = stepOf(id, OWNER_WAIT_MS, OWNER_WAIT_MS);
    try {
      await act();
    } catch (error) {
      waiters.delete(id);
      throw error;
    }
    if ((await step).state === "sent") return { sent: true };
    return { sent: false, kept: await owner.get(id) };
  }

  return {
    delivery,
    owner,
    start() {
      const worker = new Worker<JobData, Step>(MESSAGES, deliver, {
        connection: blocking(),
        prefix: PREFIX,
        concurrency: 1,
        limiter: { max: 1, duration: intervalMs },
        settings: {
          backoffStrategy: (attemptsMade, _type, _error, job) =>
            redeliveryBackoffSeconds(
              attemptsMade - 1,
              Boolean((job?.data as JobData | undefined)?.uncertain),
              config.redelivery,
            ) * 1_000,
        },
      });
      worker.on("error", (error) => log({ outcome: "redelivery_error", error: error.message }));
      worker.on("completed", (job, step) => {
        if (!job.data.test) void leftRound(job.data.network);
        // attemptsMade counts the send that just succeeded: more than one, and it was sent again.
        if (step.state === "sent" && job.attemptsMade > 1) {
          log({
            outcome: "redelivered",
            attempts: job.attemptsMade,
            uncertain: Boolean(job.data.uncertain),
          });
        }
      });
      worker.on("failed", (job) => {
        if (!job || job.data.test || job.attemptsMade < (job.opts.attempts ?? 1)) return;
        void leftRound(job.data.network);
        log({
          outcome: "gave_up",
          for: job.data.waitingFor ?? "provider",
          attempts: job.attemptsMade,
          uncertain: Boolean(job.data.uncertain),
        });
      });
      let timer: NodeJS.Timeout | undefined;
      let running: Promise<unknown> = Promise.resolve();
      let stopping = false;
      const tick = () => {
        running = housekeeping()
          .catch((error: Error) => {
            log({ outcome: "redelivery_error", error: error.message });
            return false;
          })
          .then((done) => {
            // Until Redis first answers, look again soon: what this disk keeps waits for it.
            if (!stopping) timer = setTimeout(tick, done ? TICK_MS : 1_000).unref();
          });
      };
      tick();
      return {
        async stop() {
          stopping = true;
          clearTimeout(timer);
          await running;
          await worker.close();
          await owner.close();
        },
      };
    },
  };

  /** Moves this instance's disk into the queue, deletes what is past CONTACT_KEEP_DAYS, tells the owner once. */
  async function housekeeping(): Promise<boolean> {
    if (connection.status !== "ready") return false;
    if (!risksTold) {
      risksTold = true;
      const risks = await parts.risks();
      if (risks.length) {
        console.warn(
          `[contact] Redis ${risks.join(" and ")}: kept messages could be lost. Run it with appendonly yes and maxmemory-policy noeviction.`,
        );
      }
    }
    let imported = 0;
    for (const [dir, into] of [
      [config.mail.undeliveredDir, "messages"],
      [config.mail.spamDir, "held"],
    ] as const) {
      for (const { file, entry } of (await listUndelivered(dir)).messages) {
        await importEntry(entry, into);
        await rm(file, { force: true });
        imported += 1;
      }
    }
    if (imported) log({ outcome: "imported", count: imported });
    const keepMs = config.keepDays * 86_400_000;
    const purged = [
      ...(await messages.clean(keepMs, 1_000, "failed")),
      ...(await held.clean(keepMs, 1_000, "wait")),
    ];
    if (purged.length)
      log({ outcome: "purged", folder: "queue", reason: "expired", ageDays: config.keepDays });
    const { messages: all } = await owner.list();
    // "Messages waiting" is about the provider's failures; the refused account has its own alert.
    const failing = all.filter(
      (m) => m.state === "waiting" && (m.for === "provider" || m.for === "uncertain"),
    );
    const spam = all.filter((m) => m.state === "held" && m.for === "suspected_spam").map((m) => m.since);
    await tellOwner(config, parts.state, parts.notify, {
      failingSeconds: failing.map((m) => (Date.now() - Date.parse(m.since)) / 1_000),
      heldSince: spam,
    });
    return true;
  }

  async function importEntry(entry: UndeliveredEntry, into: "messages" | "held") {
    const id = messageId(entry.template_params);
    const data: JobData = {
      params: entry.template_params,
      network: entry.network ?? "imported",
      receivedAt: entry.time,
      since: entry.time,
      ...(entry.counted ? { counted: true } : {}),
      ...(entry.uncertain ? { uncertain: true } : {}),
      ...(entry.signals ? { signals: entry.signals } : {}),
    };
    if (into === "held") await held.add("held", { ...data, heldFor: "suspected_spam" }, { jobId: id });
    else await enqueue(data, id);
  }
}

const KEPT_STATES = ["waiting", "prioritized", "delayed", "active", "failed"] as const;
