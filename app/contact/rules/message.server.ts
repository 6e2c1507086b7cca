// A message's words and shapes: its states, the record the store keeps, what the relay and a visitor are told.
import { createHash } from "node:crypto";
import type { ContactFailureReason } from "../form/contract";

export type TemplateParams = {
  name: string;
  from_email: string;
  subject: string;
  message: string;
  to_name: string;
};

/** `paced`: no slot at the provider's rate came in time, so nothing was sent. */
export type SendFailureKind = "rejected" | "server_error" | "unreachable" | "dropped" | "timeout" | "paced";

/** What a waiting message waits for; each is sent again by itself when it frees. */
export const WAITING_FOR = [
  "provider", // the provider failed; tried again with a backoff, given up after CONTACT_REDELIVER_FOR_HOURS of tries
  "uncertain", // as "provider", but an attempt may have arrived: tried again later
  "account", // the provider refuses the account until the owner fixes it; probed
  "pace", // its slot at the provider's rate
  "day_limit",
  "month_limit",
  "network_share", // its network's daily share of mails
] as const;
export type WaitingFor = (typeof WAITING_FOR)[number];

/** Why a message waits for the owner; it is never sent unless released. */
export const HELD_FOR = ["suspected_spam", "refused_by_provider"] as const;
export type HeldFor = (typeof HELD_FOR)[number];

export type KeptState =
  | { state: "waiting"; for: WaitingFor }
  | { state: "held"; for: HeldFor }
  | { state: "given_up"; for: WaitingFor };

/** A kept message as the owner's commands show it (times as ISO strings). */
export type Kept = KeptState & {
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

/** A kept message as an engine stores it (times in ms): the one record the rules read and return. */
export type Message = KeptState & {
  id: string;
  params: TemplateParams;
  /** The sender's network: its daily share, and a fair turn when a backlog drains. */
  network: string;
  receivedAt: number;
  since: number;
  attempts: number;
  nextAttempt: number | null;
  uncertain: boolean;
  /** A unit of the send budget was spent on it: sending it again spends none (decision 045). */
  counted: boolean;
  /** A unit of its network's daily share was spent on it, before its first try: never a second. */
  shared: boolean;
  /** Waiting on the provider or the account: what its visitor was told, and a re-post is told again. */
  failure?: ContactFailureReason;
  providerText?: string;
  signals?: string[];
};

/** Who sends: a visitor waits briefly for a slot; the rest wait their turn; a probe or the owner go while refusing. */
export type Sender = "visitor" | "redelivery" | "probe" | "owner";

/** What the relay says of one send: sent, not sent because of what it waits for, or the provider's failure. */
export type RelayOutcome =
  /** `refusalEnded`: this send ended the account's refusal. */
  | { ok: true; status: number; attempts: number; refusalEnded?: boolean }
  | { ok: false; waiting: RelayWait; until?: number }
  | {
      ok: false;
      waiting?: undefined;
      failure: Exclude<SendFailureKind, "paced">;
      status: number;
      text: string;
      uncertain: boolean;
      counted: boolean;
      /** The account's refusal, with what the owner should do; null for this message's own or a passing fault. */
      hint: string | null;
      /** A 4xx about this message alone: held for the owner with the provider's words, the rest go on. */
      refusedForItself: boolean;
      attempts: number;
    };
type RelayWait = Extract<WaitingFor, "day_limit" | "month_limit" | "pace" | "account">;

/** What a visitor is told: sent (or waiting only for what frees by itself), or how it failed. */
export type Sent =
  { ok: true; waiting?: WaitingFor } | { ok: false; status: number; reason: ContactFailureReason };

/** A message's content hash: the same message posted again is the same one. */
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

export const REFUSING = { status: 503, reason: "provider_refusing" } as const;
export const REFUSED_FOR_ITSELF = { status: 502, reason: "refused_by_provider" } as const;
/** Not sent, and no place to keep it: the visitor keeps the text and is told to write by other means. */
export const NOT_KEPT = { ok: false, status: 503, reason: "not_kept" } as const;

export function failureOf(
  outcome: Exclude<RelayOutcome, { ok: true } | { waiting: Exclude<RelayWait, "account"> }>,
) {
  return outcome.waiting || outcome.hint ? REFUSING : FAILURE[outcome.failure];
}

/** A failed send in the states' words: the account's refusal, or the provider's failure (it may have arrived). */
export function waitingOn(reason: ContactFailureReason, uncertain: boolean) {
  const waitingFor: WaitingFor =
    reason === REFUSING.reason ? "account" : uncertain ? "uncertain" : "provider";
  return { for: waitingFor, failure: reason };
}

/** Waiting on the provider's failure: the only wait that may give a message up or call for an alert. */
export const failedByProvider = (kept: { for: WaitingFor | HeldFor }) =>
  kept.for === "provider" || kept.for === "uncertain";

export function keptView(message: Message): Kept {
  const { network: _, counted: __, failure: ___, ...rest } = message;
  return {
    ...rest,
    receivedAt: new Date(message.receivedAt).toISOString(),
    since: new Date(message.since).toISOString(),
    nextAttempt:
      message.state === "waiting" && message.nextAttempt !== null
        ? new Date(message.nextAttempt).toISOString()
        : null,
  };
}

export function describeState(kept: KeptState): string {
  const why = kept.for.replaceAll("_", " ");
  if (kept.state === "waiting") return `waiting: ${why}`;
  if (kept.state === "held") return `held: ${why}`;
  return `given up: ${why}`;
}
