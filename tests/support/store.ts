// The one-process store as a test reads and seeds it: the real SQLite file in OUTBOX_DIR, opened as the
// server and the CLI open it (they may hold it at the same time).
import { type Message } from "~/contact/rules/message.server";
import { afterAttempt, received, seen, suspected, type Rules } from "~/contact/rules/rulebook.server";
import { openSqliteStore } from "~/contact/store/sqlite.server";
import type { Store } from "~/contact/store/store.server";
import { PROVIDER_FAILED, VALID_TEMPLATE_PARAMS } from "./contact";

export async function withStore<T>(outbox: string, work: (db: Store) => T | Promise<T>): Promise<T> {
  const db = await openSqliteStore(outbox, () => undefined);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Every kept message, oldest first, as the owner's commands see them. */
export const keptIn = (outbox: string): Promise<Message[]> =>
  withStore(outbox, async (db) => (await db.list()).map((kept) => seen(kept, Date.now())));

export const keptWith = async (outbox: string, subject: string): Promise<Message | undefined> =>
  (await keptIn(outbox)).find((message) => message.params.subject === subject);

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
export async function keep(
  outbox: string,
  subject: string,
  {
    ageMs = 0,
    spam = false,
    network = "unknown",
    ...extra
  }: Partial<Message> & { ageMs?: number; spam?: boolean } = {},
): Promise<string> {
  const at = Date.now() - ageMs;
  const params = { ...VALID_TEMPLATE_PARAMS, subject };
  const base = spam
    ? suspected(params, network, ["links"], at)
    : afterAttempt(received(params, network, at), PROVIDER_FAILED, at, RULES)!;
  const message = { ...base, ...extra } as Message;
  await withStore(outbox, (db) => db.put(message));
  return message.id;
}
