// Opening the store beside another process: SQLite may refuse the switch to WAL at once (SQLITE_BUSY without
// its busy timeout); the switch is tried again within a bound, and any other error is thrown as it came.
import { describe, expect, it } from "vitest";
import { walMode } from "~/contact/store/sqlite.server";

/** SQLite's handle as far as the switch uses it: refuses `busyTimes` times, then takes it. */
function handle(busyTimes: number, errcode = 5) {
  const calls: string[] = [];
  return {
    calls,
    exec(sql: string) {
      calls.push(sql);
      if (calls.length <= busyTimes) throw Object.assign(new Error("database is locked"), { errcode });
    },
  };
}

describe("the switch to WAL", () => {
  it("refused at once by another process's opening, it is tried again until it is taken", () => {
    const db = handle(3);
    walMode(db);
    expect(db.calls).toHaveLength(4);
    expect(db.calls.at(-1)).toMatch(/journal_mode = WAL/);
  });

  it("another error is not tried again", () => {
    const db = handle(1, 26);
    expect(() => walMode(db)).toThrow("database is locked");
    expect(db.calls).toHaveLength(1);
  });

  it("refused for longer than the bound, the last refusal is thrown", () => {
    const db = handle(Number.POSITIVE_INFINITY);
    expect(() => walMode(db, 200)).toThrow("database is locked");
    expect(db.calls.length).toBeGreaterThan(2);
  });
});
