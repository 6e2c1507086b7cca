// The relay's one store as an async port (decision 062): kept messages and their claims, the shared records,
// used proofs; the statements are written once, and an adapter (sqlite, postgres) only runs them.
import type { Message } from "../rules/message.server";
import { SQL } from "./statements.server";

/** One auto-commit statement at a time; the adapter waits out another process's lock without blocking. */
export type Sql = {
  run(sql: string, params: unknown[]): Promise<number>;
  all<T>(sql: string, params: unknown[]): Promise<T[]>;
  recover(): void;
  backup(file: string): Promise<void>;
  close(): Promise<void>;
};

export class StoreError extends Error {
  override name = "StoreError";
}

export type Change<T, R> = (current: T) => { next: T | null; result: R };

export type SharedState = {
  read<T extends object>(name: string, fallback: T): Promise<T>;
  change<T extends object, R>(name: string, fallback: T, change: Change<T, R>): Promise<R>;
};

export type Stored = { message: Message; claimedUntil: number | null };
/** `orphaned`: the previous sender's claim ran out, so it may have arrived. */
export type Taken = { message: Message; orphaned: boolean };

export type StoreHealth = { state: "ok" } | { state: "refusing"; since: number; cause: string };

export type Store = {
  where: string;
  health(): StoreHealth;
  probe(): Promise<boolean>;
  get(id: string): Promise<Stored | null>;
  list(): Promise<Stored[]>;
  due(now: number): Promise<Message[]>;
  unclaimed(now: number): Promise<Stored[]>;
  nextDue(): Promise<number | null>;
  count(which: "kept" | "spam"): Promise<number>;
  oldestSpam(): Promise<Message | null>;
  /** False when its id is kept; with `claimUntil`, held by this process and taking no place until it is put. */
  add(message: Message, claimUntil?: number): Promise<boolean>;
  put(message: Message): Promise<void>;
  place(message: Message, limit: number): Promise<boolean>;
  remove(id: string): Promise<boolean>;
  /** Removed, and tried again until that lands; meanwhile this process never takes it. */
  forget(id: string): void;
  claim(id: string, now: number, claimUntil: number): Promise<Taken | null>;
  state: SharedState;
  claimProof(hash: string, now: number, ttlMs: number): Promise<boolean>;
  seenBy(keys: string[], client: string, now: number, ttlMs: number): Promise<number[]>;
  backup(file: string): Promise<void>;
  close(): Promise<void>;
};

export type StoreEvent =
  | { outcome: "store_refusing"; cause: string }
  | { outcome: "store_ok" }
  | { outcome: "store_waiting"; where: string; cause: string }
  | { outcome: "store_connection_lost"; cause: string };

type Row = { body: string; claimed_until: number | string | null };
const stored = (row: Row): Stored => ({
  message: JSON.parse(row.body) as Message,
  claimedUntil: row.claimed_until === null ? null : Number(row.claimed_until),
});
const record = <T>(row: { value: string } | undefined, fallback: T): T =>
  row ? { ...fallback, ...(JSON.parse(row.value) as Partial<T>) } : fallback;
const columns = (m: Message) => [
  m.id,
  m.for === "suspected_spam" ? 1 : 0,
  m.state === "waiting" ? m.nextAttempt : null,
  m.receivedAt,
];

const CONFLICT_RETRIES = 50;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` again in growing pauses while `again(error)`, until `boundMs` has passed. */
export async function patiently<T>(
  work: () => T | Promise<T>,
  {
    again,
    boundMs,
    jitter = false,
  }: { again: (error: unknown) => boolean; boundMs: number; jitter?: boolean },
): Promise<T> {
  const until = Date.now() + boundMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    try {
      return await work();
    } catch (error) {
      if (!again(error) || Date.now() + pause > until) throw error;
      await sleep(jitter ? pause * (0.5 + Math.random()) : pause);
    }
  }
}

export function createStore(
  sql: Sql,
  { where, log }: { where: string; log: (event: StoreEvent) => void },
): Store {
  let health: StoreHealth = { state: "ok" };
  const forgotten = new Set<string>();

  const refused = (error: unknown): never => {
    const cause = (error as Error).message;
    if (health.state === "ok") {
      health = { state: "refusing", since: Date.now(), cause };
      log({ outcome: "store_refusing", cause });
    }
    throw new StoreError(`${where}: ${cause}`, { cause: error });
  };
  const took = () => {
    if (health.state === "ok") return;
    health = { state: "ok" };
    log({ outcome: "store_ok" });
  };
  const write = async (statement: string, params: unknown[]) => {
    const changed = await sql.run(statement, params).catch(refused);
    took();
    return changed;
  };
  const read = <T>(statement: string, params: unknown[] = []) => sql.all<T>(statement, params).catch(refused);

  const settleForgotten = async () => {
    for (const id of forgotten) {
      await write(SQL.remove, [id]);
      forgotten.delete(id);
    }
  };
  // Also without those forgotten when it began: it may read a row whose removal lands meanwhile.
  const messages = async (statement: string, params: unknown[] = []) => {
    const hidden = new Set(forgotten);
    return (await read<Row>(statement, params))
      .map(stored)
      .filter(({ message }) => !hidden.has(message.id) && !forgotten.has(message.id));
  };
  const one = async (statement: string, params: unknown[]) => (await messages(statement, params))[0] ?? null;
  const swept = { proofs: 0, seen: 0 };
  const sweep = async (which: keyof typeof swept, statement: string, now: number, ttlMs: number) => {
    if (now - swept[which] <= ttlMs) return;
    swept[which] = now;
    await write(statement, [now]);
  };
  // This process's changes of one record go one at a time; the compare-and-set is for other processes.
  const turns = new Map<string, Promise<unknown>>();
  const inTurn = <R>(name: string, work: () => Promise<R>): Promise<R> => {
    const next = (turns.get(name) ?? Promise.resolve()).then(work, work);
    const settled = next.catch(() => undefined);
    turns.set(name, settled);
    void settled.then(() => turns.get(name) === settled && turns.delete(name));
    return next;
  };

  return {
    where,
    health: () => health,
    async probe() {
      if (health.state !== "ok") sql.recover();
      try {
        await write(SQL.probe, []);
        await settleForgotten();
        return true;
      } catch {
        return false;
      }
    },
    get: (id) => one(SQL.get, [id]),
    list: () => messages(SQL.list),
    due: async (now) => (await messages(SQL.due, [now])).map(({ message }) => message),
    unclaimed: (now) => messages(SQL.unclaimed, [now]),
    async nextDue() {
      const [row] = await read<{ due: number | string | null }>(SQL.nextDue);
      return row?.due == null ? null : Number(row.due);
    },
    async count(which) {
      const [row] = await read<{ n: number | string }>(SQL.count, [which === "spam" ? 1 : 0]);
      return Number(row?.n ?? 0);
    },
    oldestSpam: async () => (await one(SQL.oldestSpam, []))?.message ?? null,
    async add(message, claimUntil) {
      await settleForgotten();
      const claim = claimUntil ?? null;
      const held = claim === null ? [claim, 0, 1] : [claim, 1, 0];
      const params = [...columns(message), ...held, JSON.stringify(message)];
      return (await write(SQL.add, params)) === 1;
    },
    async put(message) {
      await settleForgotten();
      await write(SQL.put, [...columns(message), JSON.stringify(message)]);
    },
    async place(message, limit) {
      await settleForgotten();
      return (await write(SQL.place, [...columns(message), JSON.stringify(message), limit])) === 1;
    },
    remove: async (id) => (await write(SQL.remove, [id])) === 1,
    forget(id) {
      forgotten.add(id);
      void settleForgotten().catch(() => undefined);
    },
    async claim(id, now, claimUntil) {
      if (forgotten.has(id)) return null;
      await settleForgotten();
      const [row] = await read<{ body: string; claims: number | string }>(SQL.claim, [claimUntil, id, now]);
      took();
      return row ? { message: JSON.parse(row.body) as Message, orphaned: Number(row.claims) > 1 } : null;
    },
    state: {
      async read(name, fallback) {
        const [row] = await read<{ value: string }>(SQL.read, [name]);
        return record(row, fallback);
      },
      change: (name, fallback, change) =>
        inTurn(name, async () => {
          for (let tries = 0; tries < CONFLICT_RETRIES; tries++) {
            const [row] = await read<{ value: string; version: number | string }>(SQL.read, [name]);
            const { next, result } = change(record(row, fallback));
            if (next === null) return result;
            const value = JSON.stringify(next);
            const changed = row
              ? await write(SQL.updateRecord, [value, name, row.version])
              : await write(SQL.insertRecord, [name, value]);
            if (changed === 1) return result;
          }
          throw new StoreError(`${where}: the shared record ${name} kept changing under this process`);
        }),
    },
    async claimProof(hash, now, ttlMs) {
      await sweep("proofs", SQL.sweepProofs, now, ttlMs);
      return (await write(SQL.proof, [hash, now + ttlMs, now])) === 1;
    },
    async seenBy(keys, client, now, ttlMs) {
      await sweep("seen", SQL.sweepSeen, now, ttlMs);
      const counts: number[] = [];
      for (const key of keys) {
        await write(SQL.see, [key, client, now + ttlMs]);
        const [row] = await read<{ n: number | string }>(SQL.others, [key, client, now]);
        counts.push(Number(row?.n ?? 0));
      }
      return counts;
    },
    backup: (file) =>
      sql.backup(file).catch((error: Error) => {
        throw new StoreError(`cannot copy ${where} to ${file}: ${error.message}`, { cause: error });
      }),
    async close() {
      await settleForgotten().catch(() => undefined);
      await sql.close();
    },
  };
}
