// The transport (relay or outbox), what is kept for the owner instead of sent, and the contact log.
import type { MailConfig } from "~/config.server";
import { writeLogLine } from "~/lib/log-line.server";
import type { ContactFailureReason } from "./contract";
import { buildSendBody, sendEmail, type RetryOptions, type SendFailureKind } from "./emailjs.server";
import type { TemplateParams } from "./emailjs.server";
import {
  findKept,
  removeUndelivered,
  storeUndelivered,
  writeToOutbox,
  type KeepAllowance,
  type StoreOutcome,
  type UndeliveredFailure,
} from "./store.server";

type TransportResult =
  | { ok: true }
  | {
      ok: false;
      status: number;
      reason: ContactFailureReason;
      repost?: boolean;
    };

/** `mayKeep` is asked before a failed message is kept as a new file (decision 024). */
type Transport = (params: TemplateParams, mayKeep?: () => Promise<KeepAllowance>) => Promise<TransportResult>;

export const FAILURE: Record<SendFailureKind, { status: number; reason: ContactFailureReason }> = {
  rejected: { status: 502, reason: "upstream_rejected" },
  server_error: { status: 502, reason: "upstream_error" },
  unreachable: { status: 502, reason: "upstream_unreachable" },
  dropped: { status: 502, reason: "upstream_dropped" },
  timeout: { status: 504, reason: "upstream_timeout" },
};

export function createTransport(mail: MailConfig, log: ContactLogger, retry?: RetryOptions): Transport {
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

  return async (params, mayKeep) => {
    // Already waiting: the redelivery sends it; calling the provider again could mail it twice (decision 024).
    const kept = await findKept(mail.undeliveredDir, params).catch(() => null);
    if (kept) {
      log({ outcome: "already_kept", reason: kept.reason });
      if (kept.reason === "over_daily_limit") return { ok: true };
      const failure = Object.values(FAILURE).find(({ reason }) => reason === kept.reason);
      return { ok: false, ...(failure ?? FAILURE.server_error), repost: true };
    }
    log({ outcome: "accepted", transport: "relay" });
    const result = await sendEmail(mail.apiUrl, buildSendBody(mail, params), retry);
    log({
      outcome: "relayed",
      ok: result.ok,
      upstreamStatus: result.status,
      attempts: result.attempts,
      durationMs: result.durationMs,
    });
    if (result.ok) {
      await removeUndelivered(mail.undeliveredDir, params).catch(() => false);
      return { ok: true };
    }

    const failure = FAILURE[result.failure];
    const keeping = { reason: failure.reason, uncertain: result.uncertain };
    const wasKept = await keepForOwner(
      log,
      { outcome: "undelivered", ...keeping },
      mail.undeliveredDir,
      params,
      { ...keeping, upstreamStatus: result.status },
      mayKeep,
    );
    if (!wasKept) return { ok: false, status: 503, reason: "not_kept" };
    return { ok: false, ...failure };
  };
}

/** Keeps a message in `dir` for the owner and logs `event` with what became of it; false when not kept. */
export async function keepForOwner(
  log: ContactLogger,
  event: KeepEvent,
  dir: string,
  params: TemplateParams,
  failure: UndeliveredFailure,
  mayKeep?: () => Promise<KeepAllowance>,
): Promise<boolean> {
  let stored: StoreOutcome | "failed";
  try {
    stored = await storeUndelivered(dir, params, failure, mayKeep);
  } catch {
    stored = "failed";
  }
  log({ ...event, stored });
  return stored === "new" || stored === "existing";
}

type KeepEvent =
  | { outcome: "kept"; reason: "suspected_spam" | "over_daily_limit"; signals?: string[] }
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
    }
  | (KeepEvent & { stored: StoreOutcome | "failed" });

export type ContactLogger = (event: ContactEvent) => void;

export const logContactEvent: ContactLogger = (event) => writeLogLine("contact", event);
