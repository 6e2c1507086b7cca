// Send or keep: the outbox or the relay, and what was not sent kept for the owner (decisions 007, 024, 029).
import type { AppConfig, MailConfig } from "~/config.server";
import type { ContactFailureReason } from "./contract";
import type { TemplateParams } from "./emailjs.server";
import type { ContactLogger, HeldBack, KeptEvent } from "./events.server";
import type { Admitted, Quotas } from "./limits.server";
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
  reason: REFUSED_FOR_ITSELF.reason,
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

const PROVIDER_FAILED: ReadonlySet<string> = new Set(Object.values(FAILURE).map(({ reason }) => reason));

/** Waiting on the provider's failure: the only wait that may give a message up or call for an alert (decision 052). */
export const failedByProvider = (reason: string) => PROVIDER_FAILED.has(reason);

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

type RelayFailure = Exclude<RelayOutcome, { ok: true } | { held: Exclude<HeldBack, "over_network_limit"> }>;

export function failureOf(outcome: RelayFailure): { status: number; reason: ContactFailureReason } {
  return outcome.held || outcome.hint ? REFUSING : FAILURE[outcome.failure];
}

const HELD: ReadonlySet<string> = new Set<HeldBack>([
  "over_daily_limit",
  "over_monthly_limit",
  "paced",
  "over_network_limit",
]);

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
  async function keep(
    event: KeptEvent,
    dir: string,
    params: TemplateParams,
    keptAs: KeptAs,
    sender: Admitted,
    spam = false,
  ): Promise<boolean> {
    const mayStore = () => quotas.keep(sender, spam);
    const evictOldest = spam
      ? (oldest: { time: string }) =>
          log({ outcome: "purged", folder: "spam", reason: "folder_full", ageDays: ageInDays(oldest.time) })
      : undefined;
    let stored: StoreOutcome | "failed";
    try {
      const kept = { ...keptAs, network: sender.network };
      stored = await storeUndelivered(dir, params, kept, { mayStore, evictOldest });
    } catch {
      stored = "failed";
    }
    log({ ...event, stored });
    return stored === "new" || stored === "existing";
  }

  const hold = async (reason: HeldBack, params: TemplateParams, sender: Admitted): Promise<Sent> => {
    const keptAs = { reason, uncertain: false, upstreamStatus: 0 };
    const kept = await keep({ outcome: "kept", reason }, mail.undeliveredDir, params, keptAs, sender);
    return kept ? { ok: true, held: reason } : NOT_KEPT;
  };

  return {
    keepAsSpam: (params, signals, sender) =>
      keep(
        { outcome: "kept", reason: "suspected_spam", signals },
        mail.spamDir,
        params,
        { reason: "suspected_spam", signals, upstreamStatus: 0, uncertain: false },
        sender,
        true,
      ),

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
        log({ outcome: "already_kept", reason: waiting.reason });
        if (setAside(waiting)) return { ok: false, ...REFUSED_FOR_ITSELF };
        if (HELD.has(waiting.reason)) return { ok: true, held: waiting.reason as HeldBack };
        const failure = [...Object.values(FAILURE), REFUSING].find(({ reason }) => reason === waiting.reason);
        return { ok: false, ...(failure ?? FAILURE.server_error) };
      }
      if (!(await quotas.networkShare(sender.network)).ok) return hold("over_network_limit", params, sender);

      log({ outcome: "accepted", transport: "relay" });
      const sent = await relay.send(params, { who });
      if (sent.ok) {
        await removeUndelivered(mail.undeliveredDir, params).catch(() => false);
        return { ok: true };
      }
      if (sent.held && sent.held !== "provider_refusing") return hold(sent.held, params, sender);
      if (!sent.held && sent.refusedForItself) {
        const aside = { ...setAsideAs(sent.status, sent.text), uncertain: false, counted: sent.counted };
        const event = { outcome: "kept", reason: aside.reason } as const;
        if (!(await keep(event, mail.undeliveredDir, params, aside, sender))) return NOT_KEPT;
        // Not the visitor's failure either (decision 008).
        await quotas.giveBack(sender);
        return { ok: false, ...REFUSED_FOR_ITSELF };
      }
      const failure = failureOf(sent);
      const keeping = { reason: failure.reason, uncertain: !sent.held && sent.uncertain };
      const kept = await keep(
        { outcome: "undelivered", ...keeping },
        mail.undeliveredDir,
        params,
        {
          ...keeping,
          upstreamStatus: sent.held ? 0 : sent.status,
          counted: !sent.held && sent.counted,
          // The give-up clock runs only while the provider fails it, not while the owner must act (decision 052).
          ...(failure.reason !== REFUSING.reason ? { failedAt: new Date().toISOString() } : {}),
        },
        sender,
      );
      if (!kept) return NOT_KEPT;
      await quotas.giveBack(sender);
      return { ok: false, ...failure };
    },
  };
}
