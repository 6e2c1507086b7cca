// The one-process store: one SQLite file in OUTBOX_DIR (node:sqlite, WAL) that the server and the owner's CLI
// use at once: kept messages, the shared records (budget, provider, alerts, the owner's sign-in), used proofs.
import { chmodSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type { Message } from "./message-state.server";
import type { SharedState } from "./shared-state.server";

export const DATABASE_FILE = "outbox.sqlite";
/** Loaded when a store opens, not when this module does: an older Node then says which it needs (server/node-version.ts). */
const sqlite = () => process.getBuiltinModule("node:sqlite");
/** How long a send may hold a message before another process may take it (then it may have arrived). */
const CLAIM_MS = 60_000;

export type Database = {
  /** False when OUTBOX_DIR could not be opened: the records live in memory, and no message is kept. */
  durable: boolean;
  get(id: string): Message | null;
  /** Writes the message in its state, and frees it for the next process to take. */
  put(message: Message): void;
  /** Adds it unless a message with its id is kept; false when one is. */
  add(message: Message): boolean;
  remove(id: string): boolean;
  /** Every kept message, oldest first. */
  list(): Message[];
  /** Waiting messages due by `now` that no process is sending. */
  due(now: number): Message[];
  /** Every message no process is sending: what an instance moves into the queue. */
  unclaimed(now: number): Message[];
  /** When the next waiting message falls due; null when none waits by itself. */
  nextDue(): number | null;
  count(which: "kept" | "spam"): number;
  oldestSpam(): Message | null;
  /** Takes the message to send it: null when another process holds it, or it is gone. */
  claim(id: string, now: number): Message | null;
  state: SharedState;
  /** Each proof counts once: true the first time its hash is claimed within `ttlMs`. */
  claimProof(hash: string, now: number, ttlMs: number): boolean;
  close(): void;
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messages (
  id TEXT PRIMARY KEY,
  spam INTEGER NOT NULL,
  due INTEGER,
  received INTEGER NOT NULL,
  claimed_until INTEGER,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_due ON messages (due);
CREATE TABLE IF NOT EXISTS records (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS used_proofs (hash TEXT PRIMARY KEY, expires INTEGER NOT NULL);
`;

/** A message as seen from outside its send: one being sent, or whose sender died, may have arrived. */
const MAY_HAVE_ARRIVED = "json_set(body, '$.uncertain', json('true'))";
const SEEN = `CASE WHEN claimed_until IS NULL THEN body ELSE ${MAY_HAVE_ARRIVED} END AS body`;

type Row = { body: string };
const message = (row: Row | undefined): Message | null => (row ? (JSON.parse(row.body) as Message) : null);

/** How long a new file's switch to WAL is tried again while another process makes the same switch. */
const WAL_SWITCH_MS = 5_000;

/**
 * WAL mode, with the writes made durable at each checkpoint. Two processes opening a new file at once: SQLite
 * refuses one of them the switch at once (SQLITE_BUSY, no busy timeout), so it is tried again shortly after.
 */
export function walMode(db: Pick<DatabaseSync, "exec">, boundMs = WAL_SWITCH_MS) {
  const until = Date.now() + boundMs;
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
      return;
    } catch (error) {
      if ((error as { errcode?: number }).errcode !== SQLITE_BUSY || Date.now() > until) throw error;
      Atomics.wait(PAUSE, 0, 0, 20);
    }
  }
}
const SQLITE_BUSY = 5;
/** A word nobody wakes: Atomics.wait on it is a plain pause of the opening thread. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The store in OUTBOX_DIR; null: in memory, for a process that cannot open it (it then keeps no message). */
export function openDatabase(outboxDir: string | null): Database {
  let db: DatabaseSync;
  if (outboxDir) {
    mkdirSync(outboxDir, { recursive: true, mode: 0o700 });
    const file = path.join(outboxDir, DATABASE_FILE);
    db = new (sqlite().DatabaseSync)(file, { timeout: 5_000 });
    // Visitors' addresses are personal data: owner-only; the WAL and its index take the file's mode.
    chmodSync(file, 0o600);
    walMode(db);
  } else db = new (sqlite().DatabaseSync)(":memory:");
  db.exec(SCHEMA);

  /** One step that no other process interleaves with: BEGIN IMMEDIATE takes the write lock first. */
  const inTransaction = <T>(work: () => T): T => {
    db.exec("BEGIN IMMEDIATE");
    try {
      const result = work();
      db.exec("COMMIT");
      return result;
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  };
  const q = {
    get: db.prepare(`SELECT ${SEEN} FROM messages WHERE id = ?`),
    put: db.prepare(
      `INSERT INTO messages (id, spam, due, received, claimed_until, body) VALUES (?, ?, ?, ?, NULL, ?)
       ON CONFLICT (id) DO UPDATE SET spam = excluded.spam, due = excluded.due, claimed_until = NULL, body = excluded.body`,
    ),
    add: db.prepare(
      "INSERT OR IGNORE INTO messages (id, spam, due, received, claimed_until, body) VALUES (?, ?, ?, ?, NULL, ?)",
    ),
    remove: db.prepare("DELETE FROM messages WHERE id = ?"),
    list: db.prepare(`SELECT ${SEEN} FROM messages ORDER BY received`),
    due: db.prepare(
      "SELECT body FROM messages WHERE due <= ? AND (claimed_until IS NULL OR claimed_until < ?) ORDER BY received",
    ),
    nextDue: db.prepare("SELECT MIN(due) AS due FROM messages"),
    unclaimed: db.prepare(
      `SELECT ${SEEN} FROM messages WHERE claimed_until IS NULL OR claimed_until < ? ORDER BY received`,
    ),
    count: db.prepare("SELECT COUNT(*) AS n FROM messages WHERE spam = ?"),
    oldestSpam: db.prepare("SELECT body FROM messages WHERE spam = 1 ORDER BY received LIMIT 1"),
    claim: db.prepare(
      `UPDATE messages SET claimed_until = ?,
         body = CASE WHEN claimed_until IS NULL THEN body ELSE ${MAY_HAVE_ARRIVED} END
       WHERE id = ? AND (claimed_until IS NULL OR claimed_until < ?) RETURNING body`,
    ),
    read: db.prepare("SELECT value FROM records WHERE name = ?"),
    write: db.prepare(
      "INSERT INTO records (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    ),
    proof: db.prepare("INSERT OR IGNORE INTO used_proofs (hash, expires) VALUES (?, ?)"),
    sweepProofs: db.prepare("DELETE FROM used_proofs WHERE expires < ?"),
  };
  const row = (m: Message) =>
    [
      m.id,
      m.for === "suspected_spam" ? 1 : 0,
      m.state === "waiting" ? m.nextAttempt : null,
      m.receivedAt,
      JSON.stringify(m),
    ] as const;
  const readRecord = <T extends object>(name: string, fallback: T): T => {
    const found = q.read.get(name) as { value: string } | undefined;
    return found ? { ...fallback, ...(JSON.parse(found.value) as Partial<T>) } : fallback;
  };
  let sweptAt = 0;

  return {
    durable: outboxDir !== null,
    get: (id) => message(q.get.get(id) as Row | undefined),
    put: (m) => void q.put.run(...row(m)),
    add: (m) => q.add.run(...row(m)).changes === 1,
    remove: (id) => q.remove.run(id).changes === 1,
    list: () => (q.list.all() as Row[]).map((r) => message(r)!),
    due: (now) => (q.due.all(now, now) as Row[]).map((r) => message(r)!),
    unclaimed: (now) => (q.unclaimed.all(now) as Row[]).map((r) => message(r)!),
    nextDue: () => (q.nextDue.get() as { due: number | null }).due,
    count: (which) => (q.count.get(which === "spam" ? 1 : 0) as { n: number }).n,
    oldestSpam: () => message(q.oldestSpam.get() as Row | undefined),
    claim: (id, now) => message(q.claim.get(now + CLAIM_MS, id, now) as Row | undefined),
    state: {
      read: async (name, fallback) => readRecord(name, fallback),
      change: async (name, fallback, change) =>
        inTransaction(() => {
          const { next, result } = change(readRecord(name, fallback));
          if (next !== null) q.write.run(name, JSON.stringify(next));
          return result;
        }),
    },
    claimProof(hash, now, ttlMs) {
      if (now - sweptAt > ttlMs) {
        sweptAt = now;
        q.sweepProofs.run(now);
      }
      return q.proof.run(hash, now + ttlMs).changes === 1;
    },
    close: () => db.close(),
  };
}
