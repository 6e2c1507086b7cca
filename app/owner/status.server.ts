// The relay's state as facts, for `outbox status` (server/outbox-owner.ts prints them) and the owner's page.
import type { AppConfig } from "~/config.server";
import {
  askedPause,
  askedPauseWords,
  readAlertLedger,
  type Kept,
  type OwnerPort,
  type Relay,
  type SharedState,
} from "~/contact/index.server";
import { site } from "~/content/site";

export type RelayStatus = {
  /** null: no EmailJS ids, messages are written to the outbox. */
  provider:
    null | { state: "ok" } | { state: "refusing"; since: string; status: number; text: string; hint: string };
  /** The store refusing writes (nothing is sent meanwhile), since when and why; null when it takes them. */
  store: { since: string; cause: string } | null;
  /** A pause EmailJS asked for, in words; null when none. */
  paused: string | null;
  waiting: { count: number; oldest: string; nextAttempt: string } | null;
  givenUp: number;
  held: { count: number; lastDay: number };
  budget: {
    day: { used: number; limit: number; turnsAt: string };
    month: { used: number; limit: number; turnsAt: string };
  } | null;
  lastAlert: { kind: string; at: string; delivered: boolean } | null;
  alertsSet: boolean;
  /** The provider refusing, a message failing too long, or the store refusing writes: act. */
  attention: boolean;
};

export async function relayStatus(
  config: AppConfig,
  relay: Relay | null,
  state: SharedState,
  owner: OwnerPort,
): Promise<RelayStatus> {
  const provider = relay ? await relay.provider.read() : null;
  const asked = provider && askedPause(provider);
  const kept = await summary(owner);
  const store = owner.health();
  const oldest = kept.waiting[0];
  const next = Math.min(...kept.waiting.map(({ nextAttempt }) => nextAttempt));
  const usage = relay ? await relay.budget.usage() : null;
  const { last } = await readAlertLedger(state);
  const recent = kept.held.filter((since) => Date.now() - Date.parse(since) <= 86_400_000).length;
  // As the owner's alert: only the provider's failures need you, not a wait for the budget or the pace.
  const failingTooLong = Math.max(0, ...kept.failingSeconds) > config.waitingAlertMinutes * 60;
  const limit = (part: { used: number; limit: number; turnsAt: Date }) => ({
    used: part.used,
    limit: part.limit,
    turnsAt: part.turnsAt.toISOString(),
  });
  return {
    provider:
      provider?.state === "refusing"
        ? {
            state: "refusing",
            since: provider.since,
            status: provider.status,
            text: provider.text,
            hint: provider.hint,
          }
        : provider && { state: "ok" },
    store: store.state === "ok" ? null : { since: new Date(store.since).toISOString(), cause: store.cause },
    paused: asked ? askedPauseWords(asked) : null,
    waiting: oldest
      ? {
          count: kept.waiting.length,
          oldest: oldest.receivedAt,
          nextAttempt: new Date(Math.max(next, Date.now())).toISOString(),
        }
      : null,
    givenUp: kept.givenUp,
    held: { count: kept.held.length, lastDay: recent },
    budget: usage && { day: limit(usage.day), month: limit(usage.month) },
    lastAlert: last,
    alertsSet: config.alerts !== null,
    attention: provider?.state === "refusing" || failingTooLong || store.state !== "ok",
  };
}

type Summary = {
  waiting: { receivedAt: string; nextAttempt: number }[];
  /** How long each message waiting on the provider's failures has failed, by the give-up clock. */
  failingSeconds: number[];
  givenUp: number;
  held: string[];
};

async function summary(owner: OwnerPort): Promise<Summary> {
  const messages = await owner.list();
  const is = (state: Kept["state"]) => messages.filter((kept) => kept.state === state);
  return {
    waiting: is("waiting").map(({ receivedAt, nextAttempt }) => ({
      receivedAt,
      nextAttempt: nextAttempt ? Date.parse(nextAttempt) : Date.now(),
    })),
    failingSeconds: is("waiting")
      .filter((kept) => kept.for === "provider" || kept.for === "uncertain")
      .map(({ since }) => (Date.now() - Date.parse(since)) / 1_000),
    givenUp: is("given_up").length,
    held: is("held")
      .filter((kept) => kept.for === "suspected_spam")
      .map(({ since }) => since),
  };
}

/** The owner's test mail, from `outbox test` or the owner's page. */
export const testMessage = (from = "`outbox test`") => ({
  name: "Portfolio relay test",
  from_email: site.contact.email,
  subject: "Test message from outbox test",
  message: `A test of the contact form's relay, sent by ${from} at ${new Date().toISOString()}.`,
  to_name: site.name,
});
