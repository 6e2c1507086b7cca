// A kept message's state, in one vocabulary for both engines, the log, the owner's commands and the docs
// (decision 053): waiting messages are sent by themselves, held ones only when the owner releases them.
import type { TemplateParams } from "./emailjs.server";

/** What a waiting message waits for; each is sent again by itself when it frees. */
export type WaitingFor =
  | "provider" // the provider failed; tried again with a backoff, given up after CONTACT_REDELIVER_FOR_HOURS of tries
  | "uncertain" // as "provider", but an attempt may have arrived: tried again later
  | "account" // the provider refuses the account until the owner fixes it; probed
  | "pace" // the provider's rate, or the queue is behind
  | "day_limit"
  | "month_limit"
  | "network_share" // its network's daily share of mails
  | "queue"; // the queue (Redis) was away: kept on this instance's disk, moved in when it is back

/** Why a message waits for the owner; it is never sent unless released. */
export type HeldFor = "suspected_spam" | "refused_by_provider";

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

export function describeState(kept: KeptState): string {
  const why = kept.for.replaceAll("_", " ");
  if (kept.state === "waiting") return `waiting: ${why}`;
  if (kept.state === "held") return `held: ${why}`;
  return `given up: ${why}`;
}
