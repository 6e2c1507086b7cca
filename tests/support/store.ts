// The one-process store as a test reads and seeds it: the real SQLite file in OUTBOX_DIR, opened as the
// server and the CLI open it (they may hold it at the same time).
import { openDatabase, type Database } from "~/contact/database.server";
import { type Message } from "~/contact/message-state.server";
import { afterAttempt, received, suspected, type Rules } from "~/contact/rulebook.server";
import { PROVIDER_FAILED, VALID_TEMPLATE_PARAMS } from "./contact";

export function withStore<T>(outbox: string, work: (db: Database) => T): T {
  const db = openDatabase(outbox);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** Every kept message, oldest first. */
export const keptIn = (outbox: string): Message[] => withStore(outbox, (db) => db.list());

export const keptWith = (outbox: string, subject: string): Message | undefined =>
  keptIn(outbox).find((message) => message.params.subject === subject);

const RULES: Rules = {
  redelivery: { firstSeconds: 1, uncertainSeconds: 1, maxSeconds: 1, forHours: 1 },
  providerProbeSeconds: 600,
  keepDays: 30,
  waitingAlertMinutes: 60,
};

/**
 * Keeps a message as an engine would after the provider failed it once (or held as spam), received
 * `ageMs` ago; `extra` overrides any field. Returns its id.
 */
export function keep(
  outbox: string,
  subject: string,
  {
    ageMs = 0,
    spam = false,
    network = "unknown",
    ...extra
  }: Partial<Message> & { ageMs?: number; spam?: boolean } = {},
): string {
  const at = Date.now() - ageMs;
  const params = { ...VALID_TEMPLATE_PARAMS, subject };
  const base = spam
    ? suspected(params, network, ["links"], at)
    : afterAttempt(received(params, network, at), PROVIDER_FAILED, at, RULES)!;
  const message = { ...base, ...extra } as Message;
  withStore(outbox, (db) => db.put(message));
  return message.id;
}
