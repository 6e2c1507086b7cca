// Where an accepted message goes: the EmailJS relay, or the local outbox when
// no account is configured. Both log what happened, without the message. A
// message the relay could not deliver is kept in the undelivered folder.
import type { MailConfig } from "~/config.server";
import {
  buildSendBody,
  sendEmail,
  type RetryOptions,
  type SendFailureKind,
  type TemplateParams,
} from "./emailjs.server";
import type { ContactLogger } from "./log.server";
import { writeToOutbox } from "./outbox.server";
import { removeUndelivered, storeUndelivered, type StoreOutcome } from "./undelivered.server";
import type { ContactFailureReason } from "./contract";

export type TransportResult = { ok: true } | { ok: false; status: number; reason: ContactFailureReason };

/**
 * Sends one message. `mayKeep` is asked before a message the provider did not
 * take is kept as a new file: the sender's allowance (decision 024).
 */
export type Transport = (
  params: TemplateParams,
  mayKeep?: () => Promise<boolean>,
) => Promise<TransportResult>;

// What the visitor's request answers when the provider did not take the mail.
const FAILURE: Record<SendFailureKind, { status: number; reason: ContactFailureReason }> = {
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
      // The owner has it now: an earlier failed copy of it is no longer waiting.
      await removeUndelivered(mail.undeliveredDir, params).catch(() => false);
      return { ok: true };
    }

    const failure = FAILURE[result.failure];
    const kept = { reason: failure.reason, uncertain: result.uncertain };
    let stored: StoreOutcome | "failed";
    try {
      stored = await storeUndelivered(
        mail.undeliveredDir,
        params,
        { ...kept, upstreamStatus: result.status },
        mayKeep,
      );
    } catch {
      stored = "failed";
    }
    log({ outcome: "undelivered", ...kept, stored });
    // Not sent and not kept: the visitor must know it is up to them now.
    if (stored !== "new" && stored !== "existing") return { ok: false, status: 503, reason: "not_kept" };
    return { ok: false, ...failure };
  };
}
