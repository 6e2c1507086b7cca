// The contact feature's log lines: steps of posts, redeliveries and alerts, never what a visitor typed.
import { writeLogLine } from "~/lib/log-line.server";
import type { AlertEvent } from "./alerts/alerts.server";
import type { ContactFailureReason } from "./form/contract";
import type { HeldFor, Message, WaitingFor } from "./rules/message.server";
import type { StoreEvent } from "./store/store.server";

export type ContactEvent =
  | { outcome: "accepted"; transport: "relay" | "outbox" }
  | { outcome: "dropped"; reason: "honeypot" }
  | {
      outcome: "kept";
      for: WaitingFor | HeldFor;
      failure?: ContactFailureReason;
      uncertain?: boolean;
      signals?: string[];
    }
  | { outcome: "not_kept"; for: WaitingFor | HeldFor; why: "client_full" | "full" | "failed" }
  | { outcome: "already_kept"; for: WaitingFor | HeldFor }
  | { outcome: "unconfirmed"; problem: string }
  | { outcome: "redelivered"; attempts: number; uncertain: boolean }
  | { outcome: "redelivery_failed"; upstreamStatus: number; attempts: number; uncertain: boolean }
  | { outcome: "gave_up"; for: WaitingFor; attempts: number; uncertain: boolean }
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
  | { outcome: "purged"; for: WaitingFor | HeldFor; reason: "expired" | "full"; ageDays: number }
  | { outcome: "store_opened"; where: string; kept: number; spam: number }
  | StoreEvent
  | { outcome: "state_error"; error: string }
  | AlertEvent;

export type ContactLogger = (event: ContactEvent) => void;

export const logContactEvent: ContactLogger = (event) => writeLogLine("contact", event);

export const purged = (message: Pick<Message, "for" | "since">, reason: "expired" | "full", now: number) =>
  ({
    outcome: "purged",
    for: message.for,
    reason,
    ageDays: Math.floor((now - message.since) / 86_400_000),
  }) as const;
