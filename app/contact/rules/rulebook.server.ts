// The relay's rulebook: every next step of a message, decided here once and obeyed by both engines (decision 057).
// Pure: no I/O, and the time is always passed in, so each rule is tested on an injected clock.
import type { AppConfig } from "~/config.server";
import type { ContactFailureReason } from "../form/contract";
import type { TemplateParams } from "../delivery/emailjs.server";
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
} from "./message.server";

/** The settings the rules read (the app's config is one). */
export type Rules = Pick<
  AppConfig,
  "redelivery" | "providerProbeSeconds" | "keepDays" | "waitingAlertMinutes"
>;

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
function redeliveryBackoffSeconds(
  attempts: number,
  uncertain: boolean,
  settings: Rules["redelivery"],
): number {
  const first = uncertain ? settings.uncertainSeconds : settings.firstSeconds;
  return Math.min(Math.max(first, settings.maxSeconds), first * 2 ** attempts);
}

/** How many failed sends the backoff fits in CONTACT_REDELIVER_FOR_HOURS: the give-up rule counts tries. */
export function attemptsWithin(settings: Rules["redelivery"]): number {
  let total = 0;
  let attempts = 1;
  while (total < settings.forHours * 3_600)
    total += redeliveryBackoffSeconds(attempts++ - 1, false, settings);
  return attempts;
}

/** A new post, before its first try: it waits for its slot. */
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

/** Suspected spam: held for the owner, never sent by itself. */
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

/** The provider's failure seen last (`at`), while no send has gone through since: it is known to be failing. */
export type KnownFailure = { reason: ContactFailureReason; at?: number } | null;
/** A failure older than this is no longer known: a visitor's new message is tried, and a blip ends at once. */
export const KNOWN_FAILURE_MS = 10_000;

/**
 * What follows one answer of the provider: null when it was sent, else the message in its next state.
 * `knownFailure`: a message that would wait only for its slot waits for the provider instead while the
 * provider is known to fail (a failure of the last KNOWN_FAILURE_MS), so its visitor hears it, not "sent".
 */
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
    const uncertain = message.uncertain;
    const failure = known.reason;
    return entered(
      {
        state: "waiting",
        for: failure === REFUSING.reason ? "account" : uncertain ? "uncertain" : "provider",
      },
      {
        failure,
        nextAttempt: now + redeliveryBackoffSeconds(message.attempts, uncertain, rules.redelivery) * 1_000,
      },
    );
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

/** Its network's daily share is spent: it waits for the share's next unit. */
export const waitForShare = (message: Message, now: number, retryMs: number): Message => ({
  ...message,
  state: "waiting",
  for: "network_share",
  since: message.for === "network_share" ? message.since : now,
  nextAttempt: now + retryMs,
});

/** The account's refusal ended: what waited for it waits only for its slot now, and leaves at the pace. */
export const afterRefusal = (message: Message, now: number): Message =>
  message.state === "waiting" && message.for === "account"
    ? { ...message, for: "pace", since: now, nextAttempt: now }
    : message;

/** What a visitor is told of their new post, from what became of it (null: sent). */
export const visitorAnswer = (message: Message | null): Sent =>
  message ? answerOf(message, message.failure) : { ok: true };

/** Waits by itself and is due: what the background sends now. A probe goes while the account is refused. */
export const isDue = (message: Message, now: number) =>
  message.state === "waiting" && message.nextAttempt !== null && message.nextAttempt <= now;

/** How long a send holds a message before another process may take it (then it may have arrived). */
export const CLAIM_MS = 60_000;

/**
 * How long each sender waits for a slot at the provider's pace. A visitor whose slot is this near (two at one
 * a second) hears what EmailJS says; the owner waits at a prompt; the background never past its claim.
 */
export const slotWaitMs = (who: Sender): number =>
  ({ visitor: 2_000, owner: 10_000, redelivery: CLAIM_MS / 2, probe: CLAIM_MS / 2 })[who];

/** The time between two requests at `maxPerSecond`, with a margin for the provider's own clock (decision 046). */
export const paceIntervalMs = (maxPerSecond: number) => Math.ceil((1_000 / maxPerSecond) * 1.05);

/** A message left waiting for the pace or the budget: the rest of a backlog waits behind it too. */
export const holdsTheRest = (next: Message | null) =>
  next?.state === "waiting" && ["pace", "day_limit", "month_limit"].includes(next.for);

/** Taken after its previous sender's claim ran out: that send may have arrived. */
export const taken = ({ message, orphaned }: { message: Message; orphaned: boolean }): Message =>
  orphaned ? { ...message, uncertain: true } : message;

/**
 * A kept message as seen from outside its send: one held by a sender (alive, or dead until its claim ends)
 * may have arrived, and is tried next when that claim ends.
 */
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

/**
 * The order a backlog drains in: one message per network per round, each round by time, so many messages
 * from a few networks never put another network's behind them.
 */
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

/** How many others of its kind may be kept beside a message that takes a place. */
export const placeLimit = (first: boolean, spam: boolean) =>
  first || spam ? KEPT_LIMIT : KEPT_LIMIT - RESERVED_FOR_NEW_CLIENTS;

/** A place for one more kept message: suspected spam pushes out its oldest; the rest are refused when full. */
export function placeFor(kept: number, first: boolean, spam: boolean): "ok" | "evict_oldest" | "full" {
  if (kept < placeLimit(first, spam)) return "ok";
  return spam ? "evict_oldest" : "full";
}

/** Only what waits for the owner expires, counted from when it began to. */
export const expired = (message: Pick<Message, "state" | "since">, now: number, rules: Rules) =>
  message.state !== "waiting" && now - message.since > rules.keepDays * 86_400_000;

export type AlertLedger = {
  waitingTold: boolean;
  spamToldAt: string;
  last: { kind: string; at: string; delivered: boolean } | null;
};
export const EMPTY_LEDGER: AlertLedger = { waitingTold: false, spamToldAt: "", last: null };

type DueAlert =
  | { kind: "messages_waiting"; count: number; oldestHours: number }
  | { kind: "spam_digest"; count: number; day: string };

/** The alerts that follow from what is kept, each told once per change: messages failing too long, the spam digest. */
export function alertsDue(
  ledger: AlertLedger,
  messages: Pick<Message, "state" | "for" | "since">[],
  now: number,
  rules: Rules,
): { ledger: AlertLedger; alerts: DueAlert[] } {
  const DAY_MS = 86_400_000;
  const failing = messages
    .filter((m) => m.state === "waiting" && failedByProvider(m))
    .map((m) => now - m.since);
  const longest = Math.max(0, ...failing);
  const late = longest > rules.waitingAlertMinutes * 60_000;
  const alerts: DueAlert[] = [];
  let next = ledger;
  if (ledger.waitingTold !== late) {
    next = { ...next, waitingTold: late };
    if (late)
      alerts.push({
        kind: "messages_waiting",
        count: failing.length,
        oldestHours: Math.floor(longest / 3_600_000),
      });
  }
  const recent = messages.filter(
    (m) => m.state === "held" && m.for === "suspected_spam" && now - m.since <= DAY_MS,
  ).length;
  if (recent > 0 && (!ledger.spamToldAt || now - Date.parse(ledger.spamToldAt) >= DAY_MS)) {
    next = { ...next, spamToldAt: new Date(now).toISOString() };
    alerts.push({ kind: "spam_digest", count: recent, day: new Date(now).toISOString().slice(0, 10) });
  }
  return { ledger: next, alerts };
}

/** A refusal only the owner can fix, with what to do; null for a refusal of one message or a passing fault. */
export function accountRefusal(status: number, text: string): string | null {
  if (status === 403 && /non-browser/i.test(text)) {
    return "enable API for non-browser applications in EmailJS, Account → Security";
  }
  if (status === 412) return "reconnect the email service (e.g. Gmail) in EmailJS, Email Services";
  if (status >= 400 && status < 500 && status !== 429) {
    if (/public key|user(_| )?id|service id|template id|private key|access ?token/i.test(text)) {
      return "check EMAILJS_PUBLIC_KEY, EMAILJS_SERVICE_ID, EMAILJS_TEMPLATE_ID and EMAILJS_PRIVATE_KEY against the EmailJS dashboard";
    }
  }
  return null;
}

export type Refusals = { refusals: { status: number; words: string; id: string; at: number }[] };
const REFUSAL_MEMORY_MS = 86_400_000;
const REFUSALS_KEPT = 20;

/**
 * One message refused with words that name no account setting: held for itself, unless two other messages
 * were refused the same way within a day. Then this third one, which is not one of them, confirms that it is
 * the account's refusal, in the provider's own words.
 */
export function refusedOne(
  recorded: Refusals,
  refusal: { status: number; words: string; id: string },
  now: number,
): { next: Refusals; hint: string | null } {
  const recent = recorded.refusals.filter((r) => now - r.at < REFUSAL_MEMORY_MS && r.id !== refusal.id);
  const others = new Set(
    recent.filter((r) => r.status === refusal.status && r.words === refusal.words).map((r) => r.id),
  );
  const next = { refusals: [...recent, { ...refusal, at: now }].slice(-REFUSALS_KEPT) };
  const hint = `EmailJS refused three different messages with ${refusal.status} "${refusal.words}": see what it says in the EmailJS dashboard`;
  return { next, hint: others.size >= 2 ? hint : null };
}
