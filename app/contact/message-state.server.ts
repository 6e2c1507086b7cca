// A message's state machine, in one vocabulary for both engines, the log, the owner's commands and the docs
// (decision 053): its id, its states, what a visitor is told in each, and when it is tried again. Waiting
// messages are sent by themselves, held ones only when the owner releases them.
import { createHash } from "node:crypto";
import type { AppConfig } from "~/config.server";
import type { ContactFailureReason } from "./contract";
import type { TemplateParams } from "./emailjs.server";
import type { Sent } from "./queue.server";
import type { RelayOutcome } from "./relay.server";

/** What a waiting message waits for; each is sent again by itself when it frees. */
export const WAITING_FOR = [
  "provider", // the provider failed; tried again with a backoff, given up after CONTACT_REDELIVER_FOR_HOURS of tries
  "uncertain", // as "provider", but an attempt may have arrived: tried again later
  "account", // the provider refuses the account until the owner fixes it; probed
  "pace", // the provider's rate, or the queue is behind
  "day_limit",
  "month_limit",
  "network_share", // its network's daily share of mails
  "queue", // the queue (Redis) was away: kept on this instance's disk, moved in when it is back
] as const;
export type WaitingFor = (typeof WAITING_FOR)[number];

/** Why a message waits for the owner; it is never sent unless released. */
export const HELD_FOR = ["suspected_spam", "refused_by_provider"] as const;
export type HeldFor = (typeof HELD_FOR)[number];

export type KeptState =
  | { state: "waiting"; for: WaitingFor }
  | { state: "held"; for: HeldFor }
  | { state: "given_up"; for: WaitingFor };

export type Kept = KeptState & {
  /** The message's content hash: the same message posted again is the same one. */
  id: string;
  params: TemplateParams;
  /** When it was received, and when it entered its state (the retention clock of held and given-up ones). */
  receivedAt: string;
  since: string;
  attempts: number;
  nextAttempt: string | null;
  /** An attempt may have reached the provider: sending it again may mail it twice. */
  uncertain: boolean;
  providerText?: string;
  signals?: string[];
};

/** A message's content hash: its file's name in the folder, its job's id in the queue. */
export function messageId(params: TemplateParams): string {
  const key = JSON.stringify([params.from_email, params.subject, params.message]);
  return createHash("sha256").update(key).digest("hex").slice(0, 32);
}

/** What a visitor is told when the provider failed, by how it failed (the spec's texts follow from the reason). */
export const FAILURE = {
  rejected: { status: 502, reason: "upstream_rejected" },
  server_error: { status: 502, reason: "upstream_error" },
  unreachable: { status: 502, reason: "upstream_unreachable" },
  dropped: { status: 502, reason: "upstream_dropped" },
  timeout: { status: 504, reason: "upstream_timeout" },
} as const satisfies Record<string, { status: number; reason: ContactFailureReason }>;

/** The account is refused until the owner's fix. */
export const REFUSING = { status: 503, reason: "provider_refusing" } as const;
/** Held for the owner: the provider refused this message for itself. */
export const REFUSED_FOR_ITSELF = { status: 502, reason: "refused_by_provider" } as const;
/** Not sent, and no place to keep it: the visitor keeps the text and is told to write by other means. */
export const NOT_KEPT = { ok: false, status: 503, reason: "not_kept" } as const;

type RelayFailure = Exclude<RelayOutcome, { ok: true } | { waiting: Exclude<WaitingFor, "account"> }>;

/** A failed send's answer: the account's refusal, or how the provider failed. */
export function failureOf(outcome: RelayFailure): { status: number; reason: ContactFailureReason } {
  return outcome.waiting || outcome.hint ? REFUSING : FAILURE[outcome.failure];
}

/** A failed send in the states' words: the account's refusal, or the provider's failure (it may have arrived). */
export function waitingOn(reason: ContactFailureReason, uncertain: boolean) {
  const waitingFor: WaitingFor =
    reason === REFUSING.reason ? "account" : uncertain ? "uncertain" : "provider";
  return { for: waitingFor, failure: reason };
}

/** Waiting on the provider's failure: the only wait that may give a message up or call for an alert (decision 052). */
export const failedByProvider = (kept: { for: WaitingFor | HeldFor }) =>
  kept.for === "provider" || kept.for === "uncertain";

/** What a visitor who posts a kept message again is told, from its state: it is never sent a second time. */
export function answerOf(kept: KeptState, failure?: ContactFailureReason): Sent {
  if (kept.for === "refused_by_provider") return { ok: false, ...REFUSED_FOR_ITSELF };
  if (kept.for === "account") return { ok: false, ...REFUSING };
  if (failedByProvider(kept)) {
    return {
      ok: false,
      ...(Object.values(FAILURE).find(({ reason }) => reason === failure) ?? FAILURE.server_error),
    };
  }
  return kept.state === "waiting" ? { ok: true, waiting: kept.for } : { ok: true };
}

/** The wait before the next try after `attempts` failed ones: doubling up to the maximum, first longer when uncertain. */
export function redeliveryBackoffSeconds(
  attempts: number,
  uncertain: boolean,
  settings: AppConfig["redelivery"],
): number {
  const first = uncertain ? settings.uncertainSeconds : settings.firstSeconds;
  return Math.min(Math.max(first, settings.maxSeconds), first * 2 ** attempts);
}

export function describeState(kept: KeptState): string {
  const why = kept.for.replaceAll("_", " ");
  if (kept.state === "waiting") return `waiting: ${why}`;
  if (kept.state === "held") return `held: ${why}`;
  return `given up: ${why}`;
}
