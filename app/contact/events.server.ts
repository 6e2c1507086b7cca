// The contact feature's log lines: steps of posts, redeliveries and alerts, never what a visitor typed.
import { writeLogLine } from "~/lib/log-line.server";
import type { AlertEvent } from "./alerts.server";
import type { ContactFailureReason } from "./contract";
import type { StoreOutcome } from "./store.server";

/** Why an accepted message was kept to be sent later, in the folder's words (queue-folder.server.ts maps them to states). */
export type HeldBack =
  "over_daily_limit" | "over_monthly_limit" | "paced" | "over_network_limit" | "queue_unreachable";

export type KeptEvent =
  | { outcome: "kept"; reason: "suspected_spam" | "refused_by_provider" | HeldBack; signals?: string[] }
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
      providerText?: string;
    }
  | { outcome: "provider_refusing"; upstreamStatus: number; hint: string }
  | { outcome: "provider_back" }
  | { outcome: "provider_pause"; upstreamStatus: number; askedMs: number; pausedMs: number }
  | { outcome: "purged"; folder: "spam" | "undelivered" | "queue"; reason: string; ageDays: number }
  | { outcome: "imported"; count: number }
  | { outcome: "state_error"; error: string }
  | AlertEvent
  | (KeptEvent & { stored: StoreOutcome | "failed" });

export type ContactLogger = (event: ContactEvent) => void;

export const logContactEvent: ContactLogger = (event) => writeLogLine("contact", event);
