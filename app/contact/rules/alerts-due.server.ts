// The rulebook's alerts: which follow from what is kept, each told once per change (decision 048).
import { failedByProvider, type Message } from "./message.server";
import type { Rules } from "./rulebook.server";

export type AlertLedger = {
  waitingTold: boolean;
  spamToldAt: string;
  last: { kind: string; at: string; delivered: boolean } | null;
};
export const EMPTY_LEDGER: AlertLedger = { waitingTold: false, spamToldAt: "", last: null };

type DueAlert =
  | { kind: "messages_waiting"; count: number; oldestHours: number }
  | { kind: "spam_digest"; count: number; day: string };

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
