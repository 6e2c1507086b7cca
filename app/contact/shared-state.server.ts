// The relay's small shared records (the send budget, the provider's state, the alerts told): one port, kept
// in Redis for every instance, or in the store (store.server.ts).
import type Redis from "ioredis";

export type Change<T, R> = (current: T) => { next: T | null; result: R };

export type SharedState = {
  read<T extends object>(name: string, fallback: T): Promise<T>;
  /** Reads, decides and writes as one step: no other instance changes the record in between. */
  change<T extends object, R>(name: string, fallback: T, change: Change<T, R>): Promise<R>;
};

const KEY_PREFIX = "portfolio:state:";
const CONFLICT_RETRIES = 50;

/** WATCH is per connection: the changes of one process go one at a time on a connection of their own. */
export function redisState(connection: Redis): SharedState {
  let turn: Promise<unknown> = Promise.resolve();
  const parse = <T>(text: string | null, fallback: T): T =>
    text ? { ...fallback, ...(JSON.parse(text) as Partial<T>) } : fallback;
  const inTurn = <R>(work: () => Promise<R>): Promise<R> => {
    const next = turn.then(work, work);
    turn = next.catch(() => undefined);
    return next;
  };
  return {
    read: async (name, fallback) => parse(await connection.get(KEY_PREFIX + name), fallback),
    change: (name, fallback, change) =>
      inTurn(async () => {
        const key = KEY_PREFIX + name;
        for (let tries = 0; tries < CONFLICT_RETRIES; tries++) {
          await connection.watch(key);
          const { next, result } = change(parse(await connection.get(key), fallback));
          if (next === null) {
            await connection.unwatch();
            return result;
          }
          if (await connection.multi().set(key, JSON.stringify(next)).exec()) return result;
        }
        throw new Error(`the shared record ${name} kept changing under this instance`);
      }),
  };
}
