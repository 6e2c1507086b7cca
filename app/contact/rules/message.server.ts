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

export type SendFailureKind = "rejected" | "server_error" | "unreachable" | "dropped" | "timeout" | "paced";

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

export const HELD_FOR = ["suspected_spam", "refused_by_provider"] as const;
export type HeldFor = (typeof HELD_FOR)[number];

export type KeptState =
  | { state: "waiting"; for: WaitingFor }
  | { state: "held"; for: HeldFor }
  | { state: "given_up"; for: WaitingFor };

export type Kept = KeptState & {
  id: string;
  params: TemplateParams;
  receivedAt: string;
  since: string;
  attempts: number;
  nextAttempt: string | null;
  /** An attempt may have reached the provider: sending it again may mail it twice. */
  uncertain: boolean;
  providerText?: string;
  signals?: string[];
};

export type Message = KeptState & {
  id: string;
  params: TemplateParams;
  network: string;
  receivedAt: number;
  since: number;
  attempts: number;
  nextAttempt: number | null;
  uncertain: boolean;
  /** A unit of the send budget was spent on it: sending it again spends none (decision 045). */
  counted: boolean;
  shared: boolean;
  failure?: ContactFailureReason;
  providerText?: string;
  signals?: string[];
};

export type Sender = "visitor" | "redelivery" | "probe" | "owner";

export type RelayOutcome =
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
      refusedForItself: boolean;
      attempts: number;
    };
type RelayWait = Extract<WaitingFor, "day_limit" | "month_limit" | "pace" | "account">;

export type Sent =
  { ok: true; waiting?: WaitingFor } | { ok: false; status: number; reason: ContactFailureReason };

/** A message's content hash: the same message posted again is the same one. */
export function messageId(params: TemplateParams): string {
  const key = JSON.stringify([params.from_email, params.subject, params.message]);
  return createHash("sha256").update(key).digest("hex").slice(0, 32);
}

export const FAILURE = {
  rejected: { status: 502, reason: "upstream_rejected" },
  server_error: { status: 502, reason: "upstream_error" },
  unreachable: { status: 502, reason: "upstream_unreachable" },
  dropped: { status: 502, reason: "upstream_dropped" },
  timeout: { status: 504, reason: "upstream_timeout" },
} as const satisfies Record<string, { status: number; reason: ContactFailureReason }>;

export const REFUSING = { status: 503, reason: "provider_refusing" } as const;
export const REFUSED_FOR_ITSELF = { status: 502, reason: "refused_by_provider" } as const;
export const NOT_KEPT = { ok: false, status: 503, reason: "not_kept" } as const;

export function failureOf(
  outcome: Exclude<RelayOutcome, { ok: true } | { waiting: Exclude<RelayWait, "account"> }>,
) {
  return outcome.waiting || outcome.hint ? REFUSING : FAILURE[outcome.failure];
}

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

export const describeState = (kept: KeptState) =>
  `${kept.state.replace("_", " ")}: ${kept.for.replaceAll("_", " ")}`;
