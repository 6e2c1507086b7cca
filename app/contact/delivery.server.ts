// Send or keep: the outbox or the relay, and what was not sent kept for the owner (decisions 007, 024, 029).
import type { AppConfig, MailConfig } from "~/config.server";
import type { ContactFailureReason } from "./contract";
import type { TemplateParams } from "./emailjs.server";
import type { ContactLogger, KeptEvent } from "./events.server";
import type { Admitted, Quotas } from "./limits.server";
import type { WaitingFor } from "./message-state";
import type { Delivery, Sent } from "./queue.server";
import { providerWords } from "./provider.server";
import type { Relay, RelayOutcome } from "./relay.server";
import {
  findKept,
  mayHaveArrived,
  removeUndelivered,
  setAside,
  storeUndelivered,
  writeToOutbox,
  type KeptAs,
  type StoreOutcome,
  type UndeliveredEntry,
} from "./store.server";

export const FAILURE = {
  rejected: { status: 502, reason: "upstream_rejected" },
  server_error: { status: 502, reason: "upstream_error" },
  unreachable: { status: 502, reason: "upstream_unreachable" },
  dropped: { status: 502, reason: "upstream_dropped" },
  timeout: { status: 504, reason: "upstream_timeout" },
} as const satisfies Record<string, { status: number; reason: ContactFailureReason }>;

export const REFUSING = { status: 503, reason: "provider_refusing" } as const;
/** Set aside for the owner: the provider refused this message for itself. */
export const REFUSED_FOR_ITSELF = { status: 502, reason: "refused_by_provider" } as const;

/** What a kept message becomes when the provider refused it for itself: held with its words (decision 053). */
export const setAsideAs = (status: number, text: string) => ({
  for: "refused_by_provider" as const,
  upstreamStatus: status,
  providerText: providerWords(text),
  gaveUpAt: new Date().toISOString(),
});

type Settings = AppConfig["redelivery"];

export function redeliveryBackoffSeconds(attempts: number, uncertain: boolean, settings: Settings): number {
  const first = uncertain ? settings.uncertainSeconds : settings.firstSeconds;
  return Math.min(Math.max(first, settings.maxSeconds), first * 2 ** attempts);
}

export function nextAttemptAt(entry: UndeliveredEntry, settings: Settings): number {
  if (entry.nextAttempt) return Date.parse(entry.nextAttempt);
  const failed = Date.parse(entry.failedAt ?? entry.time);
  return failed + redeliveryBackoffSeconds(0, mayHaveArrived(entry), settings) * 1_000;
}

/** A failed send in the states' words: the account's refusal, or the provider's failure (it may have arrived). */
export function waitingOn(reason: ContactFailureReason, uncertain: boolean) {
  const waitingFor: WaitingFor =
    reason === REFUSING.reason ? "account" : uncertain ? "uncertain" : "provider";
  return { for: waitingFor, failure: reason };
}

/** Waiting on the provider's failure: the only wait that may give a message up or call for an alert (decision 052). */
export const failedByProvider = (entry: Pick<UndeliveredEntry, "for">) =>
  entry.for === "provider" || entry.for === "uncertain";

/**
 * The give-up clock: the waits the provider's failures caused, each counted up to when its next attempt
 * was due, so time held for the budget, the pace, the network's share or the owner never counts (decision 052).
 */
export function failingSeconds(entry: UndeliveredEntry, settings: Settings, now: number): number {
  const earlier = entry.failedSeconds ?? 0;
  if (!entry.failedAt) return earlier;
  const waited = Math.min(now, nextAttemptAt(entry, settings)) - Date.parse(entry.failedAt);
  return earlier + Math.max(0, waited) / 1_000;
}

const NOT_KEPT = { ok: false, status: 503, reason: "not_kept" } as const;

type RelayFailure = Exclude<RelayOutcome, { ok: true } | { waiting: Exclude<WaitingFor, "account"> }>;

export function failureOf(outcome: RelayFailure): { status: number; reason: ContactFailureReason } {
  return outcome.waiting || outcome.hint ? REFUSING : FAILURE[outcome.failure];
}

const ageInDays = (time: string) => Math.floor((Date.now() - Date.parse(time)) / 86_400_000);

/** The owner's own sends (a released message): within no visitor's quotas. */
export const OWNER: Admitted = { client: "owner", network: "owner" };
const OWNER_QUOTAS: Quotas = {
  keep: async () => ({ first: true }),
  networkShare: async () => ({ ok: true }),
  giveBack: async () => {},
};

export function createDelivery(
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
        if (setAside(waiting)) return { ok: false, ...REFUSED_FOR_ITSELF };
        if (waiting.for === "account") return { ok: false, ...REFUSING };
        if (!failedByProvider(waiting)) return { ok: true, waiting: waiting.for as WaitingFor };
        const failure = Object.values(FAILURE).find(({ reason }) => reason === waiting.failure);
        return { ok: false, ...(failure ?? FAILURE.server_error) };
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
