// The queue's look after this instance's store (a real SQLite file), on an injected clock: every 30 s, and a second
// after a message was kept here while Redis was away, so that it moves into the queue as soon as Redis answers again.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Message } from "~/contact/message-state.server";
import { createRedisOwner } from "~/contact/queue-redis-owner.server";
import { received } from "~/contact/rulebook.server";
import { openSqliteStore } from "~/contact/store-sqlite.server";
import { OWNER, VALID, testConfig } from "../support/contact";

afterEach(() => void vi.useRealTimers());

/** The look over an empty queue: what it files into the queue is recorded. */
async function looking() {
  const db = await openSqliteStore(mkdtempSync(path.join(tmpdir(), "queue-look-")), () => undefined);
  const filed: Message[] = [];
  const empty = { getJobs: async () => [] } as never;
  const owner = createRedisOwner({
    config: testConfig({}),
    db,
    state: db.state,
    log: () => undefined,
    notify: () => undefined,
    quotas: {} as never,
    risks: async () => [],
    messages: empty,
    held: empty,
    file: async (message) => void filed.push(message),
  });
  const keptWhileAway = async (subject: string) => {
    const params = { ...VALID, from_email: VALID.email, subject, to_name: OWNER };
    await db.put({ ...received(params, "10.0.0", Date.now()), state: "waiting", for: "queue" });
  };
  return { filed, keptWhileAway, look: owner.lookAfter(() => true) };
}

describe("the look after this instance's store", () => {
  it("a message kept here while Redis was away moves into the queue a second later, waiting for its slot", async () => {
    vi.useFakeTimers();
    const { filed, keptWhileAway, look } = await looking();
    await vi.advanceTimersByTimeAsync(0);
    await keptWhileAway("Kept while away");
    look.soon();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(filed.map((message) => [message.params.subject, message.for])).toEqual([
      ["Kept while away", "pace"],
    ]);
    await look.stop();
  });

  it("asked again while a look runs, the next one still comes a second later", async () => {
    vi.useFakeTimers();
    const { filed, keptWhileAway, look } = await looking();
    look.soon();
    await vi.advanceTimersByTimeAsync(0);
    await keptWhileAway("Kept after the first look read the store");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(filed).toHaveLength(1);
    await look.stop();
  });

  it("otherwise the store is looked at every 30 seconds", async () => {
    vi.useFakeTimers();
    const { filed, keptWhileAway, look } = await looking();
    await vi.advanceTimersByTimeAsync(0);
    await keptWhileAway("Left by a previous run");
    await vi.advanceTimersByTimeAsync(29_000);
    expect(filed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(filed).toHaveLength(1);
    await look.stop();
  });
});
