// The folder engine, for one process without REDIS_URL: a message sent, or kept as a file in undelivered/ or
// spam/ and sent again by the redelivery loop under the resend lock, within the provider's limits; the owner's
// commands through the same port as the queue's (decisions 007, 024, 029, 030, 045-047, 053).
import { rm } from "node:fs/promises";
import path from "node:path";
import type { AppConfig, MailConfig } from "~/config.server";
import { UNKNOWN_CLIENT_KEY } from "./client.server";
import type { TemplateParams } from "./emailjs.server";
import type { ContactLogger, KeptEvent } from "./events.server";
import { tidyAndReport, type Notify } from "./housekeeping.server";
import type { Admitted, Quotas } from "./limits.server";
import {
  answerOf,
  failedByProvider,
  failureOf,
  NOT_KEPT,
  REFUSED_FOR_ITSELF,
  redeliveryBackoffSeconds,
  waitingOn,
  type Kept,
  type WaitingFor,
} from "./message-state.server";
import { providerWords } from "./provider.server";
import type { Delivery, Engine, OwnerPort, Sent, SendNow } from "./queue.server";
import { notSentWords, type Relay, type RelayWait } from "./relay.server";
import type { SharedState } from "./shared-state.server";
import {
  failingSeconds,
  findKept,
  keptState,
  listUndelivered,
  mayHaveArrived,
  nextAttemptAt,
  readUndelivered,
  removeUndelivered,
  sentByItself,
  setAside,
  storeUndelivered,
  whileResending,
  writeEntry,
  writeToOutbox,
  type KeptAs,
  type StoreOutcome,
  type UndeliveredEntry,
} from "./store.server";

type Settings = AppConfig["redelivery"];

/** What a kept message becomes when the provider refused it for itself: held with its words (decision 053). */
const setAsideAs = (status: number, text: string) => ({
  for: "refused_by_provider" as const,
  upstreamStatus: status,
  providerText: providerWords(text),
  gaveUpAt: new Date().toISOString(),
});

const ageInDays = (time: string) => Math.floor((Date.now() - Date.parse(time)) / 86_400_000);

/** The owner's own sends (a released message): within no visitor's quotas. */
const OWNER: Admitted = { client: "owner", network: "owner" };
const OWNER_QUOTAS: Quotas = {
  keep: async () => ({ first: true }),
  networkShare: async () => ({ ok: true }),
  giveBack: async () => {},
};

function createDelivery(
  mail: MailConfig,
  log: ContactLogger,
  relay: Relay | null,
  visitors: Quotas,
  who: "visitor" | "owner" = "visitor",
): Delivery {
  const quotas = who === "owner" ? OWNER_QUOTAS : visitors;
  async function keep(params: TemplateParams, keptAs: KeptAs, sender: Admitted): Promise<boolean> {
    const spam = keptAs.for === "suspected_spam";
    const evictOldest = spam
      ? (oldest: { time: string }) =>
          log({ outcome: "purged", folder: "spam", reason: "folder_full", ageDays: ageInDays(oldest.time) })
      : undefined;
    let stored: StoreOutcome | "failed";
    try {
      stored = await storeUndelivered(
        spam ? mail.spamDir : mail.undeliveredDir,
        params,
        { ...keptAs, network: sender.network },
        { mayStore: () => quotas.keep(sender, spam), evictOldest },
      );
    } catch {
      stored = "failed";
    }
    const { for: keptFor, failure, uncertain, signals } = keptAs;
    const event: KeptEvent = { outcome: "kept", for: keptFor, ...(failure ? { failure, uncertain } : {}) };
    log({ ...event, ...(signals ? { signals } : {}), stored });
    return stored === "new" || stored === "existing";
  }

  const wait = async (waitingFor: WaitingFor, params: TemplateParams, sender: Admitted): Promise<Sent> => {
    const kept = await keep(params, { for: waitingFor, uncertain: false, upstreamStatus: 0 }, sender);
    return kept ? { ok: true, waiting: waitingFor } : NOT_KEPT;
  };

  return {
    keepAsSpam: (params, signals, sender) =>
      keep(params, { for: "suspected_spam", signals, upstreamStatus: 0, uncertain: false }, sender),

    async send(params, sender) {
      if (mail.mode === "outbox") {
        log({ outcome: "accepted", transport: "outbox" });
        return writeToOutbox(mail.dir, params).then(
          () => ({ ok: true }) as const,
          () => ({ ok: false, status: 500, reason: "outbox_write_failed" }) as const,
        );
      }
      if (!relay) throw new Error("relay mode needs the relay");
      // Already waiting: the redelivery sends it; calling the provider again could mail it twice (decision 024).
      const waiting = await findKept(mail.undeliveredDir, params).catch(() => null);
      if (waiting) {
        log({ outcome: "already_kept", for: waiting.for });
        return answerOf(keptState(waiting, false), waiting.failure);
      }
      if (!(await quotas.networkShare(sender.network)).ok) return wait("network_share", params, sender);

      log({ outcome: "accepted", transport: "relay" });
      const sent = await relay.send(params, { who });
      if (sent.ok) {
        await removeUndelivered(mail.undeliveredDir, params).catch(() => false);
        return { ok: true };
      }
      if (sent.waiting && sent.waiting !== "account") return wait(sent.waiting, params, sender);
      if (!sent.waiting && sent.refusedForItself) {
        const aside = { ...setAsideAs(sent.status, sent.text), uncertain: false, counted: sent.counted };
        if (!(await keep(params, aside, sender))) return NOT_KEPT;
        // Not the visitor's failure either (decision 008).
        await quotas.giveBack(sender);
        return { ok: false, ...REFUSED_FOR_ITSELF };
      }
      const failure = failureOf(sent);
      const uncertain = !sent.waiting && sent.uncertain;
      const waitingFor = waitingOn(failure.reason, uncertain);
      const kept = await keep(
        params,
        {
          ...waitingFor,
          uncertain,
          upstreamStatus: sent.waiting ? 0 : sent.status,
          counted: !sent.waiting && sent.counted,
          // The give-up clock runs only while the provider fails it, not while the owner must act (decision 052).
          ...(failedByProvider(waitingFor) ? { failedAt: new Date().toISOString() } : {}),
        },
        sender,
      );
      if (!kept) return NOT_KEPT;
      await quotas.giveBack(sender);
      return { ok: false, ...failure };
    },
  };
}

/** The entry with its current wait on the provider closed: nothing after this counts until it fails again. */
function stretchClosed(entry: UndeliveredEntry, settings: Settings, now: number): UndeliveredEntry {
  const { failedAt: _, sending: __, ...rest } = entry;
  return { ...rest, failedSeconds: failingSeconds(entry, settings, now) };
}

type SentAgain =
  | { ok: true; attempts: number; uncertain: boolean }
  | { ok: false; waiting: RelayWait }
  | {
      ok: false;
      waiting?: undefined;
      attempts: number;
      for: KeptAs["for"];
      status: number;
      uncertain: boolean;
    };

async function sendKept(
  file: string,
  entry: UndeliveredEntry,
  relay: Relay,
  {
    who,
    settings,
    stopping,
  }: { who: "redelivery" | "probe" | "owner"; settings: Settings; stopping?: () => boolean },
): Promise<SentAgain> {
  const attempts = (entry.attempts ?? 0) + 1;
  const wasUncertain = mayHaveArrived(entry);
  await writeEntry(file, { ...entry, sending: new Date().toISOString() });
  const sent = await relay.send(entry.template_params, { who, counted: entry.counted, stopping });
  if (sent.ok) {
    await rm(file, { force: true });
    return { ok: true, attempts, uncertain: wasUncertain };
  }
  const now = Date.now();
  const rest = stretchClosed(entry, settings, now);
  if (sent.waiting) {
    await writeEntry(file, { ...rest, for: sent.waiting });
    return { ok: false, waiting: sent.waiting };
  }
  if (sent.refusedForItself) {
    // Set aside for the owner with the provider's words; the rest go on.
    const aside = setAsideAs(sent.status, sent.text);
    await writeEntry(file, { ...rest, ...aside, attempts });
    return { ok: false, attempts, for: aside.for, status: sent.status, uncertain: wasUncertain };
  }
  const uncertain = wasUncertain || sent.uncertain;
  const waitingFor = waitingOn(failureOf(sent).reason, uncertain);
  await writeEntry(file, {
    ...rest,
    ...waitingFor,
    upstreamStatus: sent.status,
    uncertain,
    ...(sent.counted ? { counted: true } : {}),
    attempts,
    ...(failedByProvider(waitingFor) ? { failedAt: new Date(now).toISOString() } : {}),
    nextAttempt: new Date(
      now + redeliveryBackoffSeconds(attempts, uncertain, settings) * 1_000,
    ).toISOString(),
  });
  return { ok: false, attempts, for: waitingFor.for, status: sent.status, uncertain };
}

type RedeliveryOptions = Omit<FolderEngineOptions, "relay"> & { relay: Relay };

async function redeliverDue({ config, relay, quotas, log }: RedeliveryOptions, stopping: () => boolean) {
  const settings = config.redelivery;
  const refusing = (await relay.provider.read()).state === "refusing";
  let probe = refusing && (await relay.provider.probeDue(config.providerProbeSeconds));
  if (refusing && !probe) return;
  await whileResending(config.mail.undeliveredDir, async ({ messages }) => {
    for (const { file } of messages) {
      if (stopping()) return;
      // Read again just before sending: a visitor's re-post may have delivered or changed it.
      const entry = await readUndelivered(file);
      if ("problem" in entry || !sentByItself(entry)) continue;
      if (failedByProvider(entry)) {
        if (failingSeconds(entry, settings, Date.now()) >= settings.forHours * 3_600) {
          await writeEntry(file, { ...entry, gaveUp: true, gaveUpAt: new Date().toISOString() });
          log({
            outcome: "gave_up",
            for: entry.for as WaitingFor,
            attempts: entry.attempts ?? 0,
            uncertain: mayHaveArrived(entry),
          });
          continue;
        }
        if (!probe && nextAttemptAt(entry, settings) > Date.now()) continue;
      }
      // Held for its network's share: sent as the share allows, its unit taken now (decision 052).
      const network = entry.network ?? UNKNOWN_CLIENT_KEY;
      if (entry.for === "network_share" && !(await quotas.networkShare(network)).ok) continue;
      const sent = await sendKept(file, entry, relay, {
        who: probe ? "probe" : "redelivery",
        settings,
        stopping,
      });
      probe = false;
      if (sent.ok) log({ outcome: "redelivered", attempts: sent.attempts, uncertain: sent.uncertain });
      else if (sent.waiting) return;
      else {
        log({
          outcome: "redelivery_failed",
          upstreamStatus: sent.status,
          attempts: sent.attempts,
          uncertain: sent.uncertain,
        });
        if (sent.for === "account") return;
      }
    }
  });
}

function startRedelivery(options: RedeliveryOptions): { stop(): Promise<void> } {
  const { log } = options;
  const tickMs = Math.min(30_000, Math.max(200, options.config.redelivery.firstSeconds * 500));
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = tidyAndReport(options.config, options.state, options.notify, log)
      .then(() => redeliverDue(options, () => stopping))
      .catch((error: Error) => log({ outcome: "redelivery_error", error: error.message }))
      .finally(() => {
        if (!stopping) timer = setTimeout(tick, tickMs).unref();
      });
  };
  timer = setTimeout(tick, tickMs).unref();
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** Its file's name, as `list` prints it; a name with a folder in it is no id. */
const fileOf = (dir: string, id: string) =>
  path.basename(id) === id && id !== "" && !id.startsWith(".") ? path.join(dir, `${id}.json`) : null;

type FolderEngineOptions = {
  config: AppConfig;
  relay: Relay | null;
  notify: Notify;
  state: SharedState;
  quotas: Quotas;
  log: ContactLogger;
};

export function createFolderEngine({
  config,
  relay,
  notify,
  state,
  quotas,
  log,
}: FolderEngineOptions): Engine {
  const { undeliveredDir, spamDir } = config.mail;
  const settings = config.redelivery;
  const ownerDelivery = createDelivery(config.mail, log, relay, quotas, "owner");

  function kept(file: string, entry: UndeliveredEntry, spam: boolean): Kept {
    const now = Date.now();
    const inState = keptState(entry, spam);
    const failing = inState.state === "waiting" && failedByProvider(entry);
    return {
      ...inState,
      id: path.basename(file, ".json"),
      params: entry.template_params,
      receivedAt: entry.time,
      // The give-up clock for a failing message, the retention clock for a held or given-up one (decision 052).
      since: failing
        ? new Date(now - failingSeconds(entry, settings, now) * 1_000).toISOString()
        : (entry.gaveUpAt ?? entry.time),
      attempts: entry.attempts ?? 0,
      nextAttempt:
        inState.state === "waiting" ? new Date(nextAttemptAt(entry, settings)).toISOString() : null,
      uncertain: mayHaveArrived(entry),
      ...(entry.providerText ? { providerText: entry.providerText } : {}),
      ...(entry.signals ? { signals: entry.signals } : {}),
    };
  }

  async function read(dir: string, id: string) {
    const file = fileOf(dir, id);
    const entry = file ? await readUndelivered(file) : null;
    return file && entry && !("problem" in entry) ? { file, entry } : null;
  }

  const find = async (id: string) => {
    const spam = await read(spamDir, id);
    if (spam) return kept(spam.file, spam.entry, true);
    const waiting = await read(undeliveredDir, id);
    return waiting && kept(waiting.file, waiting.entry, false);
  };

  /** Sends one kept message now, under the folder's resend turn. */
  async function sendOne(file: string, entry: UndeliveredEntry, sender: Relay): Promise<SendNow> {
    const sent = await sendKept(file, entry, sender, { who: "owner", settings });
    if (sent.ok) return { sent: true };
    const after = await readUndelivered(file);
    return { sent: false, kept: "problem" in after ? null : kept(file, after, false) };
  }

  /** A message in undelivered/ sent now: a held one only when released, a waiting one only when not. */
  async function sendKeptNow(id: string, which: "held" | "not held"): Promise<SendNow | null> {
    if (!relay) return null;
    const outcome = await whileResending(
      undeliveredDir,
      async ({ messages }) => {
        const found = messages.find(({ file }) => path.basename(file, ".json") === id);
        if (!found || setAside(found.entry) !== (which === "held")) return null;
        return sendOne(found.file, found.entry, relay);
      },
      { wait: true },
    );
    return outcome ?? null;
  }

  const owner: OwnerPort = {
    engine: "folder",
    where: path.dirname(undeliveredDir),
    async list() {
      const messages: Kept[] = [];
      const skipped: { id: string; problem: string }[] = [];
      for (const [dir, spam] of [
        [undeliveredDir, false],
        [spamDir, true],
      ] as const) {
        const listed = await listUndelivered(dir);
        messages.push(...listed.messages.map(({ file, entry }) => kept(file, entry, spam)));
        skipped.push(...listed.skipped.map(({ file, problem }) => ({ id: path.basename(file), problem })));
      }
      return { messages: messages.sort((a, b) => a.receivedAt.localeCompare(b.receivedAt)), skipped };
    },
    get: find,
    async remove(id) {
      const found = (await read(spamDir, id)) ?? (await read(undeliveredDir, id));
      if (!found) return false;
      await rm(found.file, { force: true });
      return true;
    },
    async release(id) {
      const outcome = await whileResending(
        spamDir,
        async (): Promise<SendNow | null> => {
          const held = await read(spamDir, id);
          if (!held) return null;
          const result = await ownerDelivery.send(held.entry.template_params, OWNER);
          // Sent, or kept in undelivered/ to be sent again: no longer held either way.
          if (result.ok || result.reason !== "not_kept") await rm(held.file, { force: true });
          if (result.ok && !result.waiting) return { sent: true };
          return { sent: false, kept: await find(id) };
        },
        { wait: true },
      );
      return outcome ?? (await sendKeptNow(id, "held"));
    },
    sendNow: (id) => sendKeptNow(id, "not held"),
    async resend(each) {
      if (!relay) return null;
      return whileResending(undeliveredDir, async ({ messages, skipped }) => {
        for (const { file } of messages) {
          // Read again just before sending: a visitor's re-post or the server may have sent it meanwhile.
          const entry = await readUndelivered(file);
          if ("problem" in entry || setAside(entry)) continue;
          each(kept(file, entry, false), await sendOne(file, entry, relay));
        }
        return { skipped: skipped.map(({ file, problem }) => ({ id: path.basename(file), problem })) };
      });
    },
    async test(params) {
      if (!relay) throw new Error("the test needs the EmailJS ids");
      const sent = await relay.send(params, { who: "owner" });
      if (sent.ok) return { sent: true };
      const now = new Date().toISOString();
      const waitingFor = sent.waiting ?? waitingOn(failureOf(sent).reason, false).for;
      const providerText = notSentWords(sent);
      return {
        sent: false,
        kept: {
          state: "waiting",
          for: waitingFor,
          id: "test",
          params,
          receivedAt: now,
          since: now,
          attempts: 1,
          nextAttempt: null,
          uncertain: false,
          ...(providerText ? { providerText } : {}),
        },
      };
    },
    close: async () => {},
  };

  return {
    delivery: createDelivery(config.mail, log, relay, quotas),
    owner,
    start: () =>
      relay ? startRedelivery({ config, relay, notify, state, quotas, log }) : { stop: async () => {} },
  };
}
