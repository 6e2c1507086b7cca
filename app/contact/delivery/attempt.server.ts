// One try of a message, the same for every sender: its network's share, the relay, its next state.
import type { ContactLogger } from "../events.server";
import type { Quotas } from "./port.server";
import type { Message, RelayOutcome, Sender } from "../rules/message.server";
import type { Relay } from "./relay.server";
import {
  afterAttempt,
  hearsKnownFailure,
  spendsShare,
  waitForShare,
  type Rules,
} from "../rules/rulebook.server";

export type AttemptParts = {
  relay: Relay;
  quotas: Quotas;
  rules: Rules;
  log: ContactLogger;
  refusalEnded(): Promise<void>;
};

/** `sent` null: its network's share waits; `next` null: sent. */
export type Tried = { sent: RelayOutcome | null; next: Message | null };

export async function attempt(
  message: Message,
  who: Sender,
  { relay, quotas, rules, log, refusalEnded }: AttemptParts,
  stopping?: () => boolean,
): Promise<Tried> {
  let held = message;
  if (spendsShare(message, who)) {
    const share = await quotas.networkShare(message.network);
    if (!share.ok) return { sent: null, next: waitForShare(message, Date.now(), share.retryMs) };
    held = { ...message, shared: true };
  }
  const sent = await relay.send(held.params, { who, counted: held.counted, stopping });
  if (sent.ok && sent.refusalEnded) await refusalEnded();
  const known = hearsKnownFailure(who, sent) ? await relay.provider.knownFailure() : null;
  const next = afterAttempt(held, sent, Date.now(), rules, known);
  if (who === "visitor") return { sent, next };
  if (!next) {
    if (message.attempts > 0)
      log({ outcome: "redelivered", attempts: message.attempts + 1, uncertain: message.uncertain });
  } else if (next.state === "given_up") {
    log({ outcome: "gave_up", for: next.for, attempts: next.attempts, uncertain: next.uncertain });
  } else if (!sent.ok && !sent.waiting) {
    const { status: upstreamStatus } = sent;
    log({ outcome: "redelivery_failed", upstreamStatus, attempts: next.attempts, uncertain: next.uncertain });
    if (next.state === "held") log({ outcome: "kept", for: next.for });
  }
  return { sent, next };
}
