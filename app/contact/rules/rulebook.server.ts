// The relay's rulebook: every next step of a message, decided here once (decision 057). Pure: the time is
// passed in, so each rule is tested on an injected clock.
import type { AppConfig } from "~/config.server";
import type { ContactFailureReason } from "../form/contract";
import {
  FAILURE,
  failedByProvider,
  failureOf,
  messageId,
  REFUSED_FOR_ITSELF,
  REFUSING,
  type KeptState,
  type Message,
  type RelayOutcome,
  type Sender,
  type Sent,
  type TemplateParams,
  waitingOn,
} from "./message.server";

export type Rules = Pick<
  AppConfig,
  "redelivery" | "providerProbeSeconds" | "keepDays" | "waitingAlertMinutes"
>;

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

function redeliveryBackoffSeconds(
  attempts: number,
  uncertain: boolean,
  settings: Rules["redelivery"],
): number {
  const first = uncertain ? settings.uncertainSeconds : settings.firstSeconds;
  return Math.min(Math.max(first, settings.maxSeconds), first * 2 ** attempts);
}

export function attemptsWithin(settings: Rules["redelivery"]): number {
  let total = 0;
  let attempts = 1;
  while (total < settings.forHours * 3_600)
    total += redeliveryBackoffSeconds(attempts++ - 1, false, settings);
  return attempts;
}

export function received(params: TemplateParams, network: string, now: number): Message {
  return {
    state: "waiting",
    for: "pace",
    id: messageId(params),
    params,
    network,
    receivedAt: now,
    since: now,
    attempts: 0,
    nextAttempt: now,
    uncertain: false,
    counted: false,
    shared: false,
  };
}

export const suspected = (
  params: TemplateParams,
  network: string,
  signals: string[],
  now: number,
): Message => ({
  ...received(params, network, now),
  state: "held",
  for: "suspected_spam",
  nextAttempt: null,
  signals,
});

export type KnownFailure = { reason: ContactFailureReason; at?: number } | null;
/** A failure older than this is no longer known: a visitor's new message is tried, and a blip ends at once. */
export const KNOWN_FAILURE_MS = 10_000;

export function afterAttempt(
  message: Message,
  sent: RelayOutcome,
  now: number,
  rules: Rules,
  knownFailure: KnownFailure = null,
): Message | null {
  if (sent.ok) return null;
  const entered = <T extends KeptState>(next: T, extra: Partial<Message> = {}): Message =>
    ({
      ...message,
      ...extra,
      ...next,
      since: next.state === message.state && next.for === message.for ? message.since : now,
    }) as Message;
  const known = knownFailure && now - (knownFailure.at ?? now) <= KNOWN_FAILURE_MS ? knownFailure : null;
  if (sent.waiting === "pace" && known) {
    const { for: waitingFor, failure } = waitingOn(known.reason, message.uncertain);
    const backoff = redeliveryBackoffSeconds(message.attempts, message.uncertain, rules.redelivery);
    return entered({ state: "waiting", for: waitingFor }, { failure, nextAttempt: now + backoff * 1_000 });
  }
  if (sent.waiting === "account")
    return entered(
      { state: "waiting", for: "account" },
      { failure: REFUSING.reason, nextAttempt: now + rules.providerProbeSeconds * 1_000 },
    );
  if (sent.waiting)
    return entered({ state: "waiting", for: sent.waiting }, { nextAttempt: sent.until ?? now });
  const attempts = message.attempts + 1;
  const counted = message.counted || sent.counted;
  const providerText = sent.text;
  if (sent.refusedForItself) {
    return entered(
      { state: "held", for: "refused_by_provider" },
      { attempts, counted, providerText, nextAttempt: null, failure: REFUSED_FOR_ITSELF.reason },
    );
  }
  const failure = failureOf(sent).reason;
  if (sent.hint) {
    return entered(
      { state: "waiting", for: "account" },
      { attempts, counted, providerText, failure, nextAttempt: now + rules.providerProbeSeconds * 1_000 },
    );
  }
  const uncertain = message.uncertain || sent.uncertain;
  const waitingFor = uncertain ? "uncertain" : "provider";
  if (attempts >= attemptsWithin(rules.redelivery)) {
    return entered(
      { state: "given_up", for: waitingFor },
      { attempts, counted, providerText, failure, uncertain, nextAttempt: null },
    );
  }
  const backoff = redeliveryBackoffSeconds(attempts - 1, uncertain, rules.redelivery) * 1_000;
  return entered(
    { state: "waiting", for: waitingFor },
    { attempts, counted, providerText, failure, uncertain, nextAttempt: now + backoff },
  );
}

export const waitForShare = (message: Message, now: number, retryMs: number): Message => ({
  ...message,
  state: "waiting",
  for: "network_share",
  since: message.for === "network_share" ? message.since : now,
  nextAttempt: now + retryMs,
});

/** Its network's daily share is spent once, before its first try; the owner's sends are within no visitor's. */
export const spendsShare = (message: Message, who: Sender) => !message.shared && who !== "owner";

export const hearsKnownFailure = (who: Sender, sent: RelayOutcome) =>
  who === "visitor" && !sent.ok && sent.waiting === "pace";

export const goesWhileRefused = (who: Sender) => who === "probe" || who === "owner";

/** A message that waits only for its slot leaves within seconds: it takes none of its client's places. */
export const takesClientPlace = (message: Message) => message.for !== "pace";

export const afterRefusal = (message: Message, now: number): Message =>
  message.state === "waiting" && message.for === "account"
    ? { ...message, for: "pace", since: now, nextAttempt: now }
    : message;

export const visitorAnswer = (message: Message | null): Sent =>
  message ? answerOf(message, message.failure) : { ok: true };

export const isDue = (message: Message, now: number) =>
  message.state === "waiting" && message.nextAttempt !== null && message.nextAttempt <= now;

/** The longest a Retry-After holds sending; a longer ask is told to the owner (decision 050). */
export const RETRY_AFTER_CAP_MS = 60_000;

export const CLAIM_MS = 60_000;

export const slotWaitMs = (who: Sender): number =>
  ({ visitor: 2_000, owner: 10_000, redelivery: CLAIM_MS / 2, probe: CLAIM_MS / 2 })[who];

/** The time between two requests at `maxPerSecond`, with a margin for the provider's own clock (decision 046). */
export const paceIntervalMs = (maxPerSecond: number) => Math.ceil((1_000 / maxPerSecond) * 1.05);

export const holdsTheRest = (next: Message | null) =>
  next?.state === "waiting" && ["pace", "day_limit", "month_limit"].includes(next.for);

export const taken = ({ message, orphaned }: { message: Message; orphaned: boolean }): Message =>
  orphaned ? { ...message, uncertain: true } : message;

/** A kept message seen from outside its send: one a sender holds may have arrived, and is tried when the claim ends. */
export function seen(
  { message, claimedUntil }: { message: Message; claimedUntil: number | null },
  now: number,
) {
  if (claimedUntil === null) return message;
  const held = claimedUntil > now && message.state === "waiting";
  return {
    ...message,
    uncertain: true,
    ...(held ? { nextAttempt: Math.max(message.nextAttempt ?? 0, claimedUntil) } : {}),
  };
}

/** A backlog drains one message per network per round, each round by time: a few networks never hold back the rest. */
export function fairOrder<T extends Pick<Message, "network" | "receivedAt">>(messages: T[]): T[] {
  const turns = new Map<string, number>();
  return [...messages]
    .sort((a, b) => a.receivedAt - b.receivedAt)
    .map((item) => {
      const round = turns.get(item.network) ?? 0;
      turns.set(item.network, round + 1);
      return { item, round };
    })
    .sort((a, b) => a.round - b.round)
    .map(({ item }) => item);
}

export const KEPT_LIMIT = 1_000;
/** Kept for clients that have left nothing, so a flood cannot close the places (decision 024). */
export const RESERVED_FOR_NEW_CLIENTS = 200;

export const placeLimit = (first: boolean, spam: boolean) =>
  first || spam ? KEPT_LIMIT : KEPT_LIMIT - RESERVED_FOR_NEW_CLIENTS;

export function placeFor(kept: number, first: boolean, spam: boolean): "ok" | "evict_oldest" | "full" {
  if (kept < placeLimit(first, spam)) return "ok";
  return spam ? "evict_oldest" : "full";
}

export const expired = (message: Pick<Message, "state" | "since">, now: number, rules: Rules) =>
  message.state !== "waiting" && now - message.since > rules.keepDays * 86_400_000;
