// The owner's alerts, sent and kept in a ledger; those due from what is kept are told once (decision 048).
import type { AppConfig } from "~/config.server";
import { createAlertSender, ownerPageUrl, type OwnerAlert } from "./alerts.server";
import type { ContactLogger } from "../events.server";
import { type Message } from "../rules/message.server";
import { alertsDue, EMPTY_LEDGER, type AlertLedger } from "../rules/alerts-due.server";
import type { Rules } from "../rules/rulebook.server";
import type { SharedState } from "../store/store.server";

const LEDGER = "alerts";
export const readAlertLedger = (state: SharedState) => state.read<AlertLedger>(LEDGER, EMPTY_LEDGER);

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
          state.change<AlertLedger, void>(LEDGER, EMPTY_LEDGER, (ledger) => ({
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

export async function tellOwner(
  state: SharedState,
  notify: Notify,
  kept: Pick<Message, "state" | "for" | "since">[],
  now: number,
  rules: Rules,
) {
  const alerts = await state.change(LEDGER, EMPTY_LEDGER, (ledger: AlertLedger) => {
    const due = alertsDue(ledger, kept, now, rules);
    return { next: due.alerts.length || due.ledger !== ledger ? due.ledger : null, result: due.alerts };
  });
  for (const alert of alerts) notify(alert);
}
