// The store port's contract, held by every adapter (SQLite, PostgreSQL): messages and their claims between two
// connections, places, shared records, used proofs, sent messages forgotten. Then what only the SQLite file
// does (another connection's lock, the checkpoint when idle, backups, files it refuses to open), and what only
// the PostgreSQL server does (another session's lock, a server that is away, logins and schemas it refuses).
import { spawnSync } from "node:child_process";
import { copyFile, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "~/contact/rules/message.server";
import {
  afterAttempt,
  CLAIM_MS,
  received,
  seen,
  suspected,
  taken,
  type Rules,
} from "~/contact/rules/rulebook.server";
import { openPostgresStore } from "~/contact/store/postgres.server";
import { DATABASE_FILE, openSqliteStore } from "~/contact/store/sqlite.server";
import { MIGRATIONS } from "~/contact/store/statements.server";
import { StoreError, type Store, type StoreEvent } from "~/contact/store/store.server";
import { PROVIDER_FAILED, VALID_TEMPLATE_PARAMS } from "../support/contact";
import { freshDatabase, startPostgresServer } from "../support/postgres-server";

type Adapter = { name: string; open: (dir: string, log: (event: StoreEvent) => void) => Promise<Store> };
/** A test's folder stands for its own database on the run's server: one made the first time it is opened. */
const databases = new Map<string, Promise<string>>();
const databaseFor = (dir: string) => {
  if (!databases.has(dir)) databases.set(dir, freshDatabase());
  return databases.get(dir)!;
};
const ADAPTERS: Adapter[] = [
  { name: "SQLite", open: (dir, log) => openSqliteStore(dir, log) },
  { name: "PostgreSQL", open: async (dir, log) => openPostgresStore(await databaseFor(dir), log) },
];

const T0 = Date.parse("2026-12-01T12:00:00Z");
const S = 1_000;
const RULES: Rules = {
  redelivery: { firstSeconds: 60, uncertainSeconds: 600, maxSeconds: 3_600, forHours: 24 },
  providerProbeSeconds: 600,
  keepDays: 30,
  waitingAlertMinutes: 60,
};

/** A visitor's new post, before its first try: waiting for its slot, due when received. */
const post = (subject: string, at = T0, network = "net-a") =>
  received({ ...VALID_TEMPLATE_PARAMS, subject }, network, at);
/** A post the provider failed once at `at`: waiting on the provider, due a minute later. */
const failedOnce = (subject: string, at = T0) => afterAttempt(post(subject, at), PROVIDER_FAILED, at, RULES)!;
/** Suspected spam, held for the owner: never due by itself. */
const spam = (subject: string, at = T0) =>
  suspected({ ...VALID_TEMPLATE_PARAMS, subject }, "net-b", ["links"], at);
/** A waiting message due at `due`, received at `at`. */
const dueAt = (subject: string, due: number, at = T0 - 60 * S): Message => ({
  ...failedOnce(subject, at),
  nextAttempt: due,
});

/** A fresh folder per test, and every store opened in it closed after. */
function useFolders(prefix: string) {
  const folders: string[] = [];
  const opened = new Set<Store>();
  afterEach(async () => {
    for (const store of opened) await store.close();
    opened.clear();
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });
  return {
    async folder() {
      const folder = await mkdtemp(path.join(tmpdir(), prefix));
      folders.push(folder);
      return folder;
    },
    track(store: Store) {
      opened.add(store);
      return store;
    },
    async close(store: Store) {
      opened.delete(store);
      await store.close();
    },
  };
}

describe.each(ADAPTERS)("the store port on $name", (adapter) => {
  const folders = useFolders("store-port-");
  let dir: string;
  let events: StoreEvent[];
  beforeEach(async () => {
    dir = await folders.folder();
    events = [];
  });
  /** One process's store: its own connection to what is in `folder`. */
  const open = async (folder = dir) =>
    folders.track(await adapter.open(folder, (event) => events.push(event)));

  it("adds, gets, lists oldest first, puts, counts and removes messages; adding a kept id again is refused", async () => {
    const store = await open();
    const later = failedOnce("Later", T0 + 2 * S);
    const earlier = failedOnce("Earlier", T0);
    const held = spam("Held", T0 + S);
    for (const message of [later, earlier, held]) expect(await store.add(message)).toBe(true);
    expect(await store.add({ ...later, attempts: 7 })).toBe(false);

    expect(await store.get(later.id)).toEqual({ message: later, claimedUntil: null });
    expect(await store.get("no-such-id")).toBeNull();
    expect((await store.list()).map(({ message }) => message)).toEqual([earlier, held, later]);
    expect([await store.count("kept"), await store.count("spam")]).toEqual([2, 1]);
    expect(await store.oldestSpam()).toEqual(held);

    const next = { ...later, attempts: 2, nextAttempt: T0 + 600 * S };
    await store.put(next);
    expect(await store.get(later.id)).toEqual({ message: next, claimedUntil: null });

    expect(await store.remove(later.id)).toBe(true);
    expect(await store.remove(later.id)).toBe(false);
    expect(await store.get(later.id)).toBeNull();
    expect((await store.list()).map(({ message }) => message.id)).toEqual([earlier.id, held.id]);
    expect([await store.count("kept"), await store.count("spam")]).toEqual([1, 1]);
  });

  it("two connections claiming one message at once: exactly one takes it, the other only after the claim ends, orphaned", async () => {
    const [first, second] = [await open(), await open()];
    const message = failedOnce("Claimed twice");
    await first.put(message);
    const until = T0 + CLAIM_MS;

    const claims = await Promise.all([
      first.claim(message.id, T0, until),
      second.claim(message.id, T0, until),
    ]);
    expect(claims.filter((claim) => claim !== null)).toEqual([{ message, orphaned: false }]);
    for (const store of [first, second]) {
      expect(await store.claim(message.id, until - 1, until + CLAIM_MS)).toBeNull();
      expect(await store.claim(message.id, until, until + CLAIM_MS)).toBeNull();
    }
    expect(await second.get(message.id)).toEqual({ message, claimedUntil: until });

    const again = await second.claim(message.id, until + 1, until + 1 + CLAIM_MS);
    expect(again).toEqual({ message, orphaned: true });
    expect(taken(again!)).toEqual({ ...message, uncertain: true });
    expect(await first.claim(message.id, until + 2, until + 2 + CLAIM_MS)).toBeNull();
    expect(await first.claim("no-such-id", T0, until)).toBeNull();
  });

  it("put frees a claim: another connection takes it at once, and it is not orphaned", async () => {
    const [sender, other] = [await open(), await open()];
    const message = failedOnce("Put back");
    await sender.put(message);
    expect(await sender.claim(message.id, T0, T0 + CLAIM_MS)).toEqual({ message, orphaned: false });
    const after = afterAttempt(message, PROVIDER_FAILED, T0 + S, RULES)!;
    await sender.put(after);
    expect(await other.get(message.id)).toEqual({ message: after, claimedUntil: null });
    expect(await other.claim(message.id, T0 + 2 * S, T0 + 2 * S + CLAIM_MS)).toEqual({
      message: after,
      orphaned: false,
    });
  });

  it("a visitor's message added with a claim is held by its sender; taken after that claim ends, it is orphaned", async () => {
    const [sender, other] = [await open(), await open()];
    const message = post("In its first try");
    const until = T0 + CLAIM_MS;
    expect(await sender.add(message, until)).toBe(true);
    expect(await other.get(message.id)).toEqual({ message, claimedUntil: until });
    expect(await other.claim(message.id, T0 + S, T0 + S + CLAIM_MS)).toBeNull();
    expect(await other.claim(message.id, until + 1, until + 1 + CLAIM_MS)).toEqual({
      message,
      orphaned: true,
    });
  });

  it("a claimed message as seen from outside its send: uncertain, and a waiting one is next tried when its claim ends", async () => {
    const store = await open();
    const waiting = failedOnce("Waiting while sent", T0);
    const held = spam("Held while released", T0 + S);
    const free = failedOnce("Nobody holds it", T0 + 2 * S);
    for (const message of [waiting, held, free]) await store.put(message);
    const until = T0 + 5 * CLAIM_MS;
    await store.claim(waiting.id, T0 + S, until);
    await store.claim(held.id, T0 + S, until);

    const shown = (await store.list()).map((kept) => seen(kept, T0 + 2 * S));
    expect(shown).toEqual([
      { ...waiting, uncertain: true, nextAttempt: until },
      { ...held, uncertain: true },
      free,
    ]);
    expect(waiting.nextAttempt).toBeLessThan(until);
  });

  it("due(now) gives only waiting messages due by now that nobody holds, oldest first", async () => {
    const store = await open();
    const overdue = dueAt("Overdue", T0 - 10 * S, T0 - 50 * S);
    const future = dueAt("Due in a minute", T0 + 60 * S, T0 - 40 * S);
    const held = spam("Held for the owner", T0 - 30 * S);
    const claimed = dueAt("Due but being sent", T0 - 20 * S, T0 - 20 * S);
    const gaveUp: Message = {
      ...failedOnce("Given up", T0 - 10 * S),
      state: "given_up",
      for: "provider",
      nextAttempt: null,
    };
    for (const message of [overdue, future, held, claimed, gaveUp]) await store.put(message);
    await store.claim(claimed.id, T0 - S, T0 + 30 * S);

    expect(await store.due(T0)).toEqual([overdue]);
    expect(await store.due(T0 + 30 * S)).toEqual([overdue]);
    expect(await store.due(T0 + 60 * S)).toEqual([overdue, future, claimed]);
    expect((await store.unclaimed(T0)).map(({ message }) => message.id)).toEqual([
      overdue.id,
      future.id,
      held.id,
      gaveUp.id,
    ]);
  });

  it("nextDue() is the earliest of the waiting messages' due times and their claims' ends; null when none waits", async () => {
    const store = await open();
    expect(await store.nextDue()).toBeNull();
    await store.put(spam("Held for the owner"));
    expect(await store.nextDue()).toBeNull();

    const overdue = dueAt("Overdue", T0 - 10 * S);
    const future = dueAt("Due in a minute", T0 + 60 * S);
    await store.put(future);
    expect(await store.nextDue()).toBe(T0 + 60 * S);
    await store.put(overdue);
    expect(await store.nextDue()).toBe(T0 - 10 * S);
    // Held by a sender, a message due in the past can next be taken when that claim ends.
    await store.claim(overdue.id, T0, T0 + 20 * S);
    expect(await store.nextDue()).toBe(T0 + 20 * S);
    await store.claim(future.id, T0, T0 + 90 * S);
    expect(await store.nextDue()).toBe(T0 + 20 * S);
    await store.put(overdue);
    expect(await store.nextDue()).toBe(T0 - 10 * S);
  });

  it("60 places at once from two connections into a store 5 short of the limit: exactly 5 land, each kind counted apart", async () => {
    const [first, second] = [await open(), await open()];
    const limit = 20;
    for (let i = 0; i < limit - 5; i++) {
      await first.put(failedOnce(`Kept ${i}`, T0 + i));
      await first.put(spam(`Spam kept ${i}`, T0 + i));
    }
    const places = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const store = i % 2 === 0 ? first : second;
        return Promise.all([
          store.place(failedOnce(`Placed ${i}`, T0 + S + i), limit),
          store.place(spam(`Spam placed ${i}`, T0 + S + i), limit),
        ]);
      }),
    );
    expect(places.filter(([kept]) => kept)).toHaveLength(5);
    expect(places.filter(([, spammed]) => spammed)).toHaveLength(5);
    expect([await second.count("kept"), await second.count("spam")]).toEqual([limit, limit]);
    expect(await first.list()).toHaveLength(2 * limit);
  });

  it("a full store takes a message already kept in its own place, and refuses a new one", async () => {
    const store = await open();
    const limit = 2;
    const [a, b] = [failedOnce("A", T0), failedOnce("B", T0 + 1)];
    expect([await store.place(a, limit), await store.place(b, limit)]).toEqual([true, true]);
    expect(await store.place(failedOnce("C", T0 + 2), limit)).toBe(false);
    const next = { ...a, attempts: 3 };
    expect(await store.place(next, limit)).toBe(true);
    expect((await store.list()).map(({ message }) => message)).toEqual([next, b]);
  });

  it("a visitor's message added with a claim holds no place until it is put", async () => {
    const store = await open();
    const limit = 3;
    const visitor = post("In its first try", T0);
    expect(await store.add(visitor, T0 + CLAIM_MS)).toBe(true);
    const others = [1, 2, 3].map((i) => failedOnce(`Other ${i}`, T0 + i));
    for (const other of others) expect(await store.place(other, limit)).toBe(true);
    expect(await store.remove(others[2]!.id)).toBe(true);
    await store.put(afterAttempt(visitor, PROVIDER_FAILED, T0 + S, RULES)!);
    expect(await store.place(others[2]!, limit)).toBe(false);
  });

  it("state.change is a compare-and-set: 50 increments at once on each of two connections make 100", async () => {
    const [first, second] = [await open(), await open()];
    const increment = (store: Store) =>
      store.state.change("counter", { n: 0 }, (current) => ({
        next: { n: current.n + 1 },
        result: current.n + 1,
      }));
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => increment(i % 2 ? first : second)),
    );
    expect(new Set(results).size).toBe(100);
    expect(await first.state.read("counter", { n: 0 })).toEqual({ n: 100 });
    expect(await second.state.read("counter", { n: 0 })).toEqual({ n: 100 });
  });

  it("a change that returns next: null writes nothing, and reading a missing record gives its fallback", async () => {
    const store = await open();
    expect(await store.state.read("never-written", { n: 7, word: "fallback" })).toEqual({
      n: 7,
      word: "fallback",
    });
    expect(await store.state.change("untouched", { n: 0 }, () => ({ next: null, result: "as it was" }))).toBe(
      "as it was",
    );
    expect(await store.state.read("untouched", { n: 5 })).toEqual({ n: 5 });

    await store.state.change("written", { n: 0 }, () => ({ next: { n: 1 }, result: null }));
    await store.state.change("written", { n: 0 }, () => ({ next: null, result: null }));
    // A field the record lacks comes from the fallback.
    expect(await store.state.read("written", { n: 0, word: "default" })).toEqual({ n: 1, word: "default" });
  });

  it("a proof is claimed once: true the first time, false again within its lifetime, true after it expired", async () => {
    const [first, second] = [await open(), await open()];
    const ttl = 60 * S;
    expect(await first.claimProof("hash-a", T0, ttl)).toBe(true);
    expect(await first.claimProof("hash-a", T0 + 1, ttl)).toBe(false);
    expect(await second.claimProof("hash-a", T0 + ttl - 1, ttl)).toBe(false);
    expect(await second.claimProof("hash-a", T0 + ttl + 1, ttl)).toBe(true);
    expect(await first.claimProof("hash-a", T0 + ttl + 2, ttl)).toBe(false);
    const atOnce = await Promise.all([
      first.claimProof("hash-b", T0, ttl),
      second.claimProof("hash-b", T0, ttl),
    ]);
    expect(atOnce.filter(Boolean)).toHaveLength(1);
  });

  it("seenBy remembers each client beside each key for its lifetime: other clients are counted, across connections", async () => {
    const [first, second] = [await open(), await open()];
    const ttl = 60 * S;
    expect(await first.seenBy(["text", "link"], "client-1", T0, ttl)).toEqual([0, 0]);
    expect(await second.seenBy(["text"], "client-2", T0 + 1, ttl)).toEqual([1]);
    // The same client again is not another; a key nobody else sent counts none.
    expect(await first.seenBy(["text", "other"], "client-1", T0 + 2, ttl)).toEqual([1, 0]);
    expect(await second.seenBy(["link"], "client-3", T0 + 3, ttl)).toEqual([1]);
    // Past its lifetime a client is forgotten: client-5 finds client-4 alone beside "text".
    expect(await first.seenBy(["text"], "client-4", T0 + ttl + 3, ttl)).toEqual([0]);
    expect(await second.seenBy(["text"], "client-5", T0 + ttl + 4, ttl)).toEqual([1]);
  });

  it("a sent message forgotten is gone from the list at once, and from the store for every connection", async () => {
    const [sender, other] = [await open(), await open()];
    const sent = failedOnce("Sent");
    const kept = failedOnce("Still kept", T0 + S);
    await sender.put(sent);
    await sender.put(kept);
    await sender.claim(sent.id, T0, T0 + CLAIM_MS);
    sender.forget(sent.id);
    expect((await sender.list()).map(({ message }) => message)).toEqual([kept]);
    expect(await sender.claim(sent.id, T0 + CLAIM_MS + 1, T0 + 2 * CLAIM_MS)).toBeNull();
    await expect.poll(() => other.get(sent.id)).toBeNull();
    expect((await other.list()).map(({ message }) => message)).toEqual([kept]);
  });
});

describe("the store port on SQLite, where only the file can show it", () => {
  const folders = useFolders("store-sqlite-");
  let dir: string;
  let file: string;
  let events: StoreEvent[];
  const cleanups: { release(): void }[] = [];
  beforeEach(async () => {
    dir = await folders.folder();
    file = path.join(dir, DATABASE_FILE);
    events = [];
  });
  afterEach(() => {
    for (const held of cleanups.splice(0)) held.release();
  });
  const open = async (folder = dir) =>
    folders.track(await openSqliteStore(folder, (event) => events.push(event)));
  const outcomes = () => events.map((event) => event.outcome);

  /** Another process's connection to the file, holding its write lock until released. */
  function holdWriteLock() {
    const db = new DatabaseSync(file);
    db.exec("BEGIN IMMEDIATE");
    let held = true;
    const lock = {
      ids: () =>
        (db.prepare("SELECT id FROM messages ORDER BY received").all() as { id: string }[]).map((r) => r.id),
      release() {
        if (!held) return;
        held = false;
        db.exec("COMMIT");
        db.close();
      },
    };
    cleanups.push(lock);
    return lock;
  }
  /** The ids in the file, read by a connection of its own. */
  function idsInFile(target = file) {
    const db = new DatabaseSync(target, { readOnly: true });
    try {
      return (db.prepare("SELECT id FROM messages ORDER BY received").all() as { id: string }[]).map(
        (r) => r.id,
      );
    } finally {
      db.close();
    }
  }
  const walBytes = async () => (await stat(`${file}-wal`).catch(() => ({ size: 0 }))).size;
  /** The main file copied alone, without its -wal and -shm, into a folder of its own. */
  async function copyAlone() {
    const copy = await folders.folder();
    await copyFile(file, path.join(copy, DATABASE_FILE));
    return copy;
  }
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

  it("while another connection holds the write lock, a forgotten message is never taken nor due; released, the next probe() removes it", async () => {
    const store = await open();
    const sent = dueAt("Sent", T0 - S);
    const kept = dueAt("Still kept", T0 - S, T0);
    await store.put(sent);
    await store.put(kept);
    const lock = holdWriteLock();
    store.forget(sent.id);
    expect(await store.claim(sent.id, T0, T0 + CLAIM_MS)).toBeNull();
    expect(await store.due(T0)).toEqual([kept]);
    expect(await store.get(sent.id)).toBeNull();
    // The removal could not land: the file still holds it.
    expect(lock.ids()).toEqual([sent.id, kept.id]);

    lock.release();
    expect(await store.probe()).toBe(true);
    expect(idsInFile()).toEqual([kept.id]);
    expect(store.health()).toEqual({ state: "ok" });
  });

  it("a forgotten message whose removal gave up under the lock is removed by the next write once it is released", async () => {
    const store = await open();
    const sent = dueAt("Sent", T0 - S);
    const kept = dueAt("Still kept", T0 - S, T0);
    await store.put(sent);
    const lock = holdWriteLock();
    store.forget(sent.id);
    // The removal waits out the lock for as long as the engine waits (5 s), then the store refuses.
    await expect.poll(() => store.health().state, { timeout: 15_000, interval: 100 }).toBe("refusing");
    expect(lock.ids()).toEqual([sent.id]);
    expect(await store.claim(sent.id, T0, T0 + CLAIM_MS)).toBeNull();
    expect(await store.due(T0)).toEqual([]);

    lock.release();
    await store.put(kept);
    expect(idsInFile()).toEqual([kept.id]);
    expect(outcomes()).toEqual(["store_refusing", "store_ok"]);
  }, 20_000);

  it("a put under another connection's write lock waits without blocking the event loop, and lands once released", async () => {
    const store = await open();
    const message = failedOnce("Waits for the lock");
    const lock = holdWriteLock();
    let settled = false;
    const putting = store.put(message).finally(() => (settled = true));
    let turns = 0;
    while (turns < 100 && !settled) {
      await turn();
      turns++;
    }
    expect({ turns, settled }).toEqual({ turns: 100, settled: false });

    lock.release();
    await putting;
    expect(await store.get(message.id)).toEqual({ message, claimedUntil: null });
    expect(idsInFile()).toEqual([message.id]);
    expect(store.health()).toEqual({ state: "ok" });
    expect(events).toEqual([]);
  });

  it("a put under a lock held past the wait bound rejects, the store says once that it refuses, and once that it takes writes again", async () => {
    const store = await open();
    const message = failedOnce("Refused under the lock");
    const lock = holdWriteLock();
    await expect(store.put(message)).rejects.toBeInstanceOf(StoreError);
    expect(store.health()).toMatchObject({ state: "refusing" });
    expect(events).toEqual([{ outcome: "store_refusing", cause: expect.any(String) as string }]);

    lock.release();
    expect(await store.probe()).toBe(true);
    expect(store.health()).toEqual({ state: "ok" });
    expect(outcomes()).toEqual(["store_refusing", "store_ok"]);
    expect(await store.get(message.id)).toBeNull();
    await store.put(message);
    expect(outcomes()).toEqual(["store_refusing", "store_ok"]);
  }, 20_000);

  it("idle a second after its writes, the main file alone holds every message; after close() too", async () => {
    const store = await open();
    const messages = [failedOnce("One", T0), spam("Two", T0 + 1), failedOnce("Three", T0 + 2)];
    for (const message of messages) await store.put(message);
    expect(await walBytes()).toBeGreaterThan(0);
    // The log is folded into the main file a second after the last write.
    await expect.poll(walBytes, { interval: 100 }).toBe(0);
    const copy = await open(await copyAlone());
    expect((await copy.list()).map(({ message }) => message)).toEqual(messages);

    const last = failedOnce("Four", T0 + 3);
    await store.put(last);
    await folders.close(store);
    const closed = await open(await copyAlone());
    expect((await closed.list()).map(({ message }) => message)).toEqual([...messages, last]);
  });

  it("backup(file) writes a copy that opens as a store with every message, readable by its owner only", async () => {
    const store = await open();
    const messages = [failedOnce("One", T0), spam("Two", T0 + 1)];
    for (const message of messages) await store.put(message);
    const target = await folders.folder();
    await store.backup(path.join(target, DATABASE_FILE));
    expect((await stat(path.join(target, DATABASE_FILE))).mode & 0o777).toBe(0o600);
    const copy = await open(target);
    expect((await copy.list()).map(({ message }) => message)).toEqual(messages);
  });

  it("a file that refuses writes opens, reads, and says once that it refuses; writable again, probe() reopens it", async ({
    skip,
  }) => {
    const message = failedOnce("Kept before it became read-only");
    const before = await open();
    await before.put(message);
    await folders.close(before);
    // Root writes any file its mode forbids: an immutable file it cannot.
    const root = process.getuid?.() === 0;
    const readOnly = root ? spawnSync("chattr", ["+i", file]) : spawnSync("chmod", ["0400", file]);
    if (readOnly.status !== 0) skip();
    const writable = () => spawnSync(root ? "chattr" : "chmod", root ? ["-i", file] : ["0600", file]);
    cleanups.push({ release: writable });

    const store = await open();
    expect(store.health()).toMatchObject({ state: "refusing" });
    expect(outcomes()).toEqual(["store_refusing"]);
    expect((await store.list()).map(({ message: kept }) => kept)).toEqual([message]);
    await expect(store.put(failedOnce("Refused"))).rejects.toBeInstanceOf(StoreError);
    expect(await store.probe()).toBe(false);
    expect(outcomes()).toEqual(["store_refusing"]);

    writable();
    expect(await store.probe()).toBe(true);
    expect(store.health()).toEqual({ state: "ok" });
    const after = failedOnce("Written once writable", T0 + S);
    await store.put(after);
    expect(idsInFile()).toEqual([message.id, after.id]);
    expect(outcomes()).toEqual(["store_refusing", "store_ok"]);
  });

  it("a file that is not a database is refused at open in one line", async () => {
    await writeFile(
      file,
      "these are not the pages of a database, only words a visitor might write\n".repeat(20),
    );
    const opening = openSqliteStore(dir, () => undefined);
    await expect(opening).rejects.toBeInstanceOf(StoreError);
    await expect(opening).rejects.toThrow(
      new StoreError(`cannot open ${file}: it is not an SQLite database`),
    );
  });

  it("a file written with a newer schema is refused at open, naming that schema", async () => {
    await folders.close(await open());
    const db = new DatabaseSync(file);
    db.exec("PRAGMA user_version = 99");
    db.close();
    const opening = openSqliteStore(dir, () => undefined);
    await expect(opening).rejects.toBeInstanceOf(StoreError);
    await expect(opening).rejects.toThrow(/^cannot open .*: it was written by a newer version \(schema 99;/);
  });
});

describe("the store port on PostgreSQL, where only a server can show it", () => {
  let url: string;
  let events: StoreEvent[];
  const opened = new Set<Store>();
  const sessions: pg.Client[] = [];
  beforeEach(async () => {
    url = await freshDatabase();
    events = [];
  });
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.end().catch(() => undefined);
    for (const store of opened) await store.close();
    opened.clear();
  });
  const open = async (target = url) => {
    const store = await openPostgresStore(target, (event) => events.push(event));
    opened.add(store);
    return store;
  };
  const outcomes = () => events.map((event) => event.outcome);
  /** The database in the store's words: its name and server, as the URL gives them. */
  const named = (target: string) => {
    const { pathname, hostname, port } = new URL(target);
    return `the PostgreSQL database ${pathname.slice(1)} at ${hostname}:${port}`;
  };
  /** Another process's session, as psql would hold one: a connection of its own. */
  async function session(target = url) {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    sessions.push(client);
    return client;
  }
  const column = async (query: string, target = url) =>
    (await (await session(target)).query<{ value: unknown }>(query)).rows.map(({ value }) => value);
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it("a put under another session's ACCESS EXCLUSIVE lock waits without blocking the event loop, fails closed past the lock timeout, and takes writes once released", async () => {
    const store = await open();
    const message = failedOnce("Waits for the lock");
    const locker = await session();
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE messages IN ACCESS EXCLUSIVE MODE");
    let settled = false;
    const putting = store.put(message).finally(() => (settled = true));
    const refused = expect(putting).rejects.toBeInstanceOf(StoreError);
    let turns = 0;
    while (turns < 100 && !settled) {
      await turn();
      turns++;
    }
    expect({ turns, settled }).toEqual({ turns: 100, settled: false });

    await refused;
    expect(store.health()).toMatchObject({ state: "refusing" });
    expect(events).toEqual([{ outcome: "store_refusing", cause: "canceling statement due to lock timeout" }]);
    await locker.query("ROLLBACK");
    expect(await store.probe()).toBe(true);
    expect(store.health()).toEqual({ state: "ok" });
    await store.put(message);
    expect(await column("SELECT id AS value FROM messages")).toEqual([message.id]);
    expect(outcomes()).toEqual(["store_refusing", "store_ok"]);
  }, 20_000);

  it("unreachable: waits at start, saying so once without the password; answers StoreError while its server is down, and takes writes again when it is back", async () => {
    const server = await startPostgresServer();
    try {
      const target = await freshDatabase(server.url);
      await server.stop();
      const opening = open(target);
      await expect.poll(outcomes).toEqual(["store_waiting"]);
      expect(events[0]).toMatchObject({ where: named(target) });
      await server.start();
      const store = await opening;
      const message = failedOnce("Kept across a restart");
      await store.put(message);

      await server.stop();
      await expect(store.put(failedOnce("Posted while it is down"))).rejects.toBeInstanceOf(StoreError);
      await expect(store.list()).rejects.toBeInstanceOf(StoreError);
      expect(store.health()).toMatchObject({ state: "refusing" });
      await server.start();
      await expect.poll(() => store.probe()).toBe(true);
      expect((await store.list()).map(({ message: kept }) => kept)).toEqual([message]);
      expect(outcomes()).toEqual(["store_waiting", "store_connection_lost", "store_refusing", "store_ok"]);
      expect(JSON.stringify(events)).not.toContain(new URL(target).password);
    } finally {
      await server.remove();
    }
  }, 60_000);

  it("a bad URL, a refused or missing password, or a missing database, is one StoreError naming the database, never the password", async () => {
    await expect(
      openPostgresStore("postgres://portfolio:SECRET@[broken/db", () => undefined),
    ).rejects.toThrow(new StoreError("cannot open the PostgreSQL database: DATABASE_URL is not a URL"));
    const wrong = new URL(url);
    wrong.password = "not-the-SECRET-password";
    await expect(openPostgresStore(wrong.href, () => undefined)).rejects.toThrow(
      new StoreError(
        `cannot open ${named(url)}: password authentication failed for user "${wrong.username}"`,
      ),
    );
    const missing = new URL(url);
    missing.pathname = "/no_such_database";
    await expect(openPostgresStore(missing.href, () => undefined)).rejects.toThrow(
      new StoreError(`cannot open ${named(missing.href)}: database "no_such_database" does not exist`),
    );
    const none = new URL(url);
    none.password = "";
    await expect(openPostgresStore(none.href, () => undefined)).rejects.toThrow(
      new StoreError(
        `cannot open ${named(url)}: SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string`,
      ),
    );
  });

  it("instances starting at once migrate the database once; one written with a newer schema is refused, naming it", async () => {
    await Promise.all([open(), open(), open()]);
    expect(await column("SELECT version AS value FROM schema_migrations ORDER BY version")).toEqual(
      MIGRATIONS.map((_, index) => index + 1),
    );
    await (await session()).query("INSERT INTO schema_migrations (version) VALUES (99)");
    await expect(openPostgresStore(url, () => undefined)).rejects.toThrow(
      new StoreError(
        `cannot open ${named(url)}: it was written by a newer version (schema 99; this one knows ${MIGRATIONS.length})`,
      ),
    );
  });

  it("backup() refuses, naming pg_dump", async () => {
    const store = await open();
    await expect(store.backup("/nowhere/copy")).rejects.toThrow(/^cannot copy .* with pg_dump/);
  });
});
