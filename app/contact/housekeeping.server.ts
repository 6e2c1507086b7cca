// The owner's side of the relay: alerts once per change, waiting and spam reported, old data deleted (decision 048).
import { rm } from "node:fs/promises";
import path from "node:path";
import type { AppConfig } from "~/config.server";
import { changeJsonFile, readJsonFile } from "~/lib/json-file.server";
import { createAlertSender, type OwnerAlert } from "./alerts.server";
import { failedByProvider, failingSeconds } from "./delivery.server";
import { listUndelivered } from "./store.server";
import type { ContactLogger } from "./events.server";

type Ledger = {
  waitingTold: boolean;
  spamToldAt: string;
  last: { kind: OwnerAlert["kind"]; at: string; delivered: boolean } | null;
};

const EMPTY: Ledger = { waitingTold: false, spamToldAt: "", last: null };
const DAY_MS = 86_400_000;

export const readAlertLedger = (config: AppConfig) => readJsonFile(ledgerFile(config), EMPTY);
const ledgerFile = (config: AppConfig) => path.join(config.mail.stateDir, "alerts.json");

export type Notify = (alert: OwnerAlert) => void;

export function createNotify(
  config: AppConfig,
  log: ContactLogger,
): { notify: Notify; settled(): Promise<void> } {
  const send = createAlertSender(config.alerts, { log });
  const pending = new Set<Promise<void>>();
  return {
    notify(alert) {
      const sent = send(alert)
        .then((delivered) =>
          changeJsonFile(ledgerFile(config), EMPTY, (ledger) => ({
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

const tellOnce = (config: AppConfig, decide: (ledger: Ledger) => Ledger | null) =>
  changeJsonFile(ledgerFile(config), EMPTY, (ledger) => {
    const next = decide(ledger);
    return { next, result: next !== null };
  });

export async function tidyAndReport(config: AppConfig, notify: Notify, log: ContactLogger, now = Date.now()) {
  const keepMs = config.keepDays * DAY_MS;
  const age = (time: string) => now - Date.parse(time);

  // Only what waits for the owner expires, counted from when it began to (decision 052).
  const spam = await listUndelivered(config.mail.spamDir);
  const waiting = await listUndelivered(config.mail.undeliveredDir);
  const expired = [
    ...spam.messages.map(({ file, entry }) => ({ file, entry, since: entry.time, folder: "spam" as const })),
    ...waiting.messages
      .filter(({ entry }) => entry.gaveUp)
      .map(({ file, entry }) => ({
        file,
        entry,
        since: entry.gaveUpAt ?? entry.time,
        folder: "undelivered" as const,
      })),
  ].filter(({ since }) => age(since) > keepMs);
  for (const { file, entry, since, folder } of expired) {
    await rm(file, { force: true });
    log({ outcome: "purged", folder, reason: entry.reason, ageDays: Math.floor(age(since) / DAY_MS) });
  }

  // Waiting on the provider's failures, by how long they have held each: what is held by us has its own alert or none.
  const failing = waiting.messages
    .filter(({ entry }) => !entry.gaveUp && failedByProvider(entry.reason))
    .map(({ entry }) => failingSeconds(entry, config.redelivery, now));
  const longest = Math.max(0, ...failing);
  const late = longest > config.waitingAlertMinutes * 60;
  if (
    await tellOnce(config, (ledger) =>
      ledger.waitingTold === late ? null : { ...ledger, waitingTold: late },
    )
  ) {
    if (late)
      notify({ kind: "messages_waiting", count: failing.length, oldestHours: Math.floor(longest / 3_600) });
  }

  const recent = spam.messages.filter(({ entry }) => age(entry.time) <= DAY_MS).length;
  const digestDue = (ledger: Ledger) =>
    recent > 0 && (!ledger.spamToldAt || age(ledger.spamToldAt) >= DAY_MS);
  if (
    await tellOnce(config, (ledger) =>
      digestDue(ledger) ? { ...ledger, spamToldAt: new Date(now).toISOString() } : null,
    )
  ) {
    notify({ kind: "spam_digest", count: recent, day: new Date(now).toISOString().slice(0, 10) });
  }
}
