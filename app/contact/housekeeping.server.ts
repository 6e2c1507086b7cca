// The owner's side of the relay: alerts once per change, waiting and spam reported, old data deleted (decision 048).
import { rm } from "node:fs/promises";
import type { AppConfig } from "~/config.server";
import { createAlertSender, type OwnerAlert } from "./alerts.server";
import { listUndelivered } from "./store.server";
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
  const send = createAlertSender(config.alerts, { log });
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

  const spam = await listUndelivered(config.mail.spamDir);
  const waiting = await listUndelivered(config.mail.undeliveredDir);
  const expired = [
    ...spam.messages.map((item) => ({ ...item, folder: "spam" as const })),
    ...waiting.messages
      .filter(({ entry }) => entry.gaveUp || entry.reason === "over_network_limit")
      .map((item) => ({ ...item, folder: "undelivered" as const })),
  ].filter(({ entry }) => age(entry.time) > keepMs);
  for (const { file, entry, folder } of expired) {
    await rm(file, { force: true });
    const ageDays = Math.floor(age(entry.time) / DAY_MS);
    log({ outcome: "purged", folder, reason: entry.reason, ageDays });
  }

  const live = waiting.messages.filter(({ entry }) => !entry.gaveUp);
  await tellOwner(
    config,
    state,
    notify,
    { waiting: live.map(({ entry }) => entry.time), heldSince: spam.messages.map(({ entry }) => entry.time) },
    now,
  );
}

/** The alerts that follow from what is kept, decided once for every instance: messages waiting, the spam digest. */
export async function tellOwner(
  config: AppConfig,
  state: SharedState,
  notify: Notify,
  kept: { waiting: string[]; heldSince: string[] },
  now = Date.now(),
) {
  const age = (time: string) => now - Date.parse(time);
  const oldest = [...kept.waiting].sort()[0];
  const late = oldest !== undefined && age(oldest) > config.waitingAlertMinutes * 60_000;
  if (
    await tellOnce(state, (ledger) => (ledger.waitingTold === late ? null : { ...ledger, waitingTold: late }))
  ) {
    if (late)
      notify({
        kind: "messages_waiting",
        count: kept.waiting.length,
        oldestHours: Math.floor(age(oldest) / 3_600_000),
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
