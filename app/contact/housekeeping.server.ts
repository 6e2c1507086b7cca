// The owner's side of the relay: alerts once per change, waiting and spam reported, old data deleted (decision 048).
import { rm } from "node:fs/promises";
import type { AppConfig } from "~/config.server";
import { createAlertSender, ownerPageUrl, type OwnerAlert } from "./alerts.server";
import { failingSeconds, listUndelivered, sentByItself } from "./store.server";
import { failedByProvider } from "./message-state.server";
import type { ContactLogger } from "./events.server";
import type { SharedState } from "./shared-state.server";

type Ledger = {
  waitingTold: boolean;
  spamToldAt: string;
  last: { kind: OwnerAlert["kind"]; at: string; delivered: boolean } | null;
};

const EMPTY: Ledger = { waitingTold: false, spamToldAt: "", last: null };
const DAY_MS = 86_400_000;

const LEDGER = "alerts";
export const readAlertLedger = (state: SharedState) => state.read(LEDGER, EMPTY);

export type Notify = (alert: OwnerAlert) => void;

export function createNotify(
  config: AppConfig,
  state: SharedState,
  log: ContactLogger,
): { notify: Notify; settled(): Promise<void> } {
  const send = createAlertSender(config.alerts, { log, ownerPage: ownerPageUrl(config.siteUrl) });
  const pending = new Set<Promise<void>>();
  return {
    notify(alert) {
      const sent = send(alert)
        .then((delivered) =>
          state.change(LEDGER, EMPTY, (ledger: Ledger) => ({
            next: { ...ledger, last: { kind: alert.kind, at: new Date().toISOString(), delivered } },
            result: undefined,
          })),
        )
        .catch(() => undefined)
        .finally(() => pending.delete(sent));
      pending.add(sent);
    },
    settled: async () => void (await Promise.all(pending)),
  };
}

const tellOnce = (state: SharedState, decide: (ledger: Ledger) => Ledger | null) =>
  state.change(LEDGER, EMPTY, (ledger: Ledger) => {
    const next = decide(ledger);
    return { next, result: next !== null };
  });

export async function tidyAndReport(
  config: AppConfig,
  state: SharedState,
  notify: Notify,
  log: ContactLogger,
  now = Date.now(),
) {
  const keepMs = config.keepDays * DAY_MS;
  const age = (time: string) => now - Date.parse(time);

  // Only what waits for the owner expires, counted from when it began to (decision 052).
  const spam = await listUndelivered(config.mail.spamDir);
  const waiting = await listUndelivered(config.mail.undeliveredDir);
  const expired = [
    ...spam.messages.map(({ file, entry }) => ({ file, entry, since: entry.time, folder: "spam" as const })),
    ...waiting.messages
      .filter(({ entry }) => !sentByItself(entry))
      .map(({ file, entry }) => ({
        file,
        entry,
        since: entry.gaveUpAt ?? entry.time,
        folder: "undelivered" as const,
      })),
  ].filter(({ since }) => age(since) > keepMs);
  for (const { file, entry, since, folder } of expired) {
    await rm(file, { force: true });
    const ageDays = Math.floor(age(since) / DAY_MS);
    log({ outcome: "purged", folder, reason: "expired", for: entry.for, ageDays });
  }

  // Waiting on the provider's failures, by how long they have failed: what is held by us has its own alert or none.
  const failing = waiting.messages
    .filter(({ entry }) => !entry.gaveUp && failedByProvider(entry))
    .map(({ entry }) => failingSeconds(entry, config.redelivery, now));
  await tellOwner(
    config,
    state,
    notify,
    { failingSeconds: failing, heldSince: spam.messages.map(({ entry }) => entry.time) },
    now,
  );
}

/** The alerts that follow from what is kept, decided once for every instance: messages waiting, the spam digest. */
export async function tellOwner(
  config: AppConfig,
  state: SharedState,
  notify: Notify,
  kept: { failingSeconds: number[]; heldSince: string[] },
  now = Date.now(),
) {
  const age = (time: string) => now - Date.parse(time);
  const longest = Math.max(0, ...kept.failingSeconds);
  const late = longest > config.waitingAlertMinutes * 60;
  if (
    await tellOnce(state, (ledger) => (ledger.waitingTold === late ? null : { ...ledger, waitingTold: late }))
  ) {
    if (late)
      notify({
        kind: "messages_waiting",
        count: kept.failingSeconds.length,
        oldestHours: Math.floor(longest / 3_600),
      });
  }

  const recent = kept.heldSince.filter((time) => age(time) <= DAY_MS).length;
  const digestDue = (ledger: Ledger) =>
    recent > 0 && (!ledger.spamToldAt || age(ledger.spamToldAt) >= DAY_MS);
  if (
    await tellOnce(state, (ledger) =>
      digestDue(ledger) ? { ...ledger, spamToldAt: new Date(now).toISOString() } : null,
    )
  ) {
    notify({ kind: "spam_digest", count: recent, day: new Date(now).toISOString().slice(0, 10) });
  }
}
