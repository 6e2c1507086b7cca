// The transport (relay or outbox), what is kept for the owner instead of sent, and the contact log.
import type { MailConfig } from "~/config.server";
import { writeLogLine } from "~/lib/log-line.server";
import type { AlertEvent } from "./alerts.server";
import type { ContactFailureReason } from "./contract";
import type { SendFailureKind, TemplateParams } from "./emailjs.server";
import type { Held, Relay, RelayOutcome } from "./relay.server";
import {
  findKept,
  removeUndelivered,
  storeUndelivered,
  writeToOutbox,
  type KeepAllowance,
  type StoreOutcome,
  type UndeliveredEntry,
  type UndeliveredFailure,
} from "./store.server";

type TransportResult =
  | { ok: true; held?: HeldFor }
  | {
      ok: false;
      status: number;
      reason: ContactFailureReason;
      repost?: boolean;
    };

/** `mayKeep` is asked before a failed message is kept as a new file (decision 024). */
type Transport = (params: TemplateParams, mayKeep?: () => Promise<KeepAllowance>) => Promise<TransportResult>;

export const FAILURE: Record<
  Exclude<SendFailureKind, "paced">,
  { status: number; reason: ContactFailureReason }
> = {
  rejected: { status: 502, reason: "upstream_rejected" },
  server_error: { status: 502, reason: "upstream_error" },
  unreachable: { status: 502, reason: "upstream_unreachable" },
  dropped: { status: 502, reason: "upstream_dropped" },
  timeout: { status: 504, reason: "upstream_timeout" },
};

const REFUSING = { status: 503, reason: "provider_refusing" } as const;

type RelayFailure = Exclude<RelayOutcome, { ok: true } | { held: Exclude<Held, "provider_refusing"> }>;

/** What a message the provider did not take is kept as, and the status its sender gets. */
export function failureOf(outcome: RelayFailure): { status: number; reason: ContactFailureReason } {
  return outcome.held || outcome.hint ? REFUSING : FAILURE[outcome.failure];
}

export function createTransport(
  mail: MailConfig,
  log: ContactLogger,
  relay: Relay | null,
  who: "visitor" | "owner" = "visitor",
): Transport {
  if (mail.mode === "outbox") {
    return async (params) => {
      log({ outcome: "accepted", transport: "outbox" });
      try {
        await writeToOutbox(mail.dir, params);
        return { ok: true };
      } catch {
        return { ok: false, status: 500, reason: "outbox_write_failed" };
      }
    };
  }

  if (!relay) throw new Error("relay mode needs the relay");
  return async (params, mayKeep) => {
    // Already waiting: the redelivery sends it; calling the provider again could mail it twice (decision 024).
    const kept = await findKept(mail.undeliveredDir, params).catch(() => null);
    if (kept) {
      log({ outcome: "already_kept", reason: kept.reason });
      if (isHeld(kept.reason)) return { ok: true, held: kept.reason };
      const failure = [...Object.values(FAILURE), REFUSING].find(({ reason }) => reason === kept.reason);
      return { ok: false, ...(failure ?? FAILURE.server_error), repost: true };
    }
    log({ outcome: "accepted", transport: "relay" });
    const sent = await relay.send(params, { who });
    if (sent.ok) {
      await removeUndelivered(mail.undeliveredDir, params).catch(() => false);
      return { ok: true };
    }
    if (sent.held && sent.held !== "provider_refusing") {
      const held = { reason: sent.held, uncertain: false, upstreamStatus: 0 };
      const kept = await keepForOwner(
        log,
        { outcome: "kept", reason: sent.held },
        mail.undeliveredDir,
        params,
        held,
        mayKeep,
      );
      return kept ? { ok: true, held: sent.held } : { ok: false, status: 503, reason: "not_kept" };
    }
    const failure = failureOf(sent);
    const keeping = { reason: failure.reason, uncertain: !sent.held && sent.uncertain };
    const wasKept = await keepForOwner(
      log,
      { outcome: "undelivered", ...keeping },
      mail.undeliveredDir,
      params,
      { ...keeping, upstreamStatus: sent.held ? 0 : sent.status, counted: !sent.held && sent.counted },
      mayKeep,
    );
    if (!wasKept) return { ok: false, status: 503, reason: "not_kept" };
    return { ok: false, ...failure };
  };
}

/** Kept without a failure: for the budget, the rate, or the owner (a network past its share). */
type HeldFor = Exclude<Held, "provider_refusing"> | "over_network_limit";
const HELD: ReadonlySet<string> = new Set<HeldFor>([
  "over_daily_limit",
  "over_monthly_limit",
  "paced",
  "over_network_limit",
]);
const isHeld = (reason: string): reason is HeldFor => HELD.has(reason);

/** Keeps a message in `dir` for the owner and logs `event` with what became of it; false when not kept. */
export async function keepForOwner(
  log: ContactLogger,
  event: KeepEvent,
  dir: string,
  params: TemplateParams,
  failure: UndeliveredFailure,
  mayKeep?: () => Promise<KeepAllowance>,
  evictOldest?: (evicted: UndeliveredEntry) => void,
): Promise<boolean> {
  let stored: StoreOutcome | "failed";
  try {
    stored = await storeUndelivered(dir, params, failure, { mayKeep, evictOldest });
  } catch {
    stored = "failed";
  }
  log({ ...event, stored });
  return stored === "new" || stored === "existing";
}

type KeepEvent =
  | { outcome: "kept"; reason: "suspected_spam" | HeldFor; signals?: string[] }
  | { outcome: "undelivered"; reason: ContactFailureReason; uncertain: boolean };

export type ContactEvent =
  | { outcome: "accepted"; transport: "relay" | "outbox" }
  | { outcome: "dropped"; reason: "honeypot" }
  | { outcome: "already_kept"; reason: string }
  | { outcome: "unconfirmed"; problem: string }
  | { outcome: "redelivered"; attempts: number; uncertain: boolean }
  | { outcome: "redelivery_failed"; upstreamStatus: number; attempts: number; uncertain: boolean }
  | { outcome: "gave_up"; reason: string; attempts: number; uncertain: boolean }
  | { outcome: "redelivery_error"; error: string }
  | { outcome: "refused"; status: number; reason: ContactFailureReason | "too_many_refusals" }
  | {
      outcome: "relayed";
      ok: boolean;
      upstreamStatus: number;
      attempts: number;
      durationMs: number;
      /** The provider's own words on a failure (never the visitor's). */
      providerText?: string;
    }
  | { outcome: "provider_refusing"; upstreamStatus: number; hint: string }
  | { outcome: "provider_back" }
  | { outcome: "state_error"; error: string }
  | AlertEvent
  | { outcome: "purged"; folder: "spam" | "undelivered"; reason: string; ageDays: number }
  | (KeepEvent & { stored: StoreOutcome | "failed" });

export type ContactLogger = (event: ContactEvent) => void;

export const logContactEvent: ContactLogger = (event) => writeLogLine("contact", event);
