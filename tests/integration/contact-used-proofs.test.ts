// A used confirmation stays used (in the store) for its whole lifetime however many claims follow it,
// a claim costs the same at any fill, a restart does not forget it, and claims past their lifetime leave
// the SQLite store in OUTBOX_DIR (decision 051).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createBotChecks, type BotChecks } from "~/contact/guard/proof.server";
import { CONFIRMATION_FIELD } from "~/contact/form/contract";
import { DATABASE_FILE, openSqliteStore } from "~/contact/store/sqlite.server";
import type { Store } from "~/contact/store/store.server";
import { testConfig } from "../support/contact";

const CLIENT = "203.0.113.9";
// The same secret before and after a restart, as a deployment sets it.
const SESSION_SECRET = "a test secret of thirty-two characters or more";

let outbox: string;
let opened: Store[];
beforeEach(async () => {
  outbox = await mkdtemp(path.join(tmpdir(), "used-proofs-"));
  opened = [];
});
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
  await rm(outbox, { recursive: true, force: true });
});

/** One process's checks: its own connection to the store in `dir`, as the server opens it. */
async function botChecks(env: Record<string, string> = {}, dir = outbox) {
  const db = await openSqliteStore(dir, () => undefined);
  opened.push(db);
  const config = testConfig({
    OUTBOX_DIR: dir,
    CONTACT_CONFIRM_MIN_SECONDS: "0",
    SESSION_SECRET,
    ...env,
  });
  return { checks: createBotChecks(config, db), db };
}

function confirmed(checks: BotChecks, token: string) {
  const form = new FormData();
  form.set(CONFIRMATION_FIELD, token);
  return checks.verify(form, CLIENT);
}

/** Claims `count` fresh tokens; resolves with how many were accepted and the CPU each took, in ms. */
async function claimFresh(checks: BotChecks, count: number) {
  const tokens = Array.from({ length: count }, () => checks.confirmation(CLIENT));
  const start = process.cpuUsage();
  let accepted = 0;
  for (const token of tokens) if ((await confirmed(checks, token)).ok) accepted++;
  const { user, system } = process.cpuUsage(start);
  return { accepted, cpuMs: (user + system) / 1_000 / count };
}

/** The used proofs in the store's file, read apart from the app's connection: hash and expiry. */
function usedProofs(): { hash: string; expires: number }[] {
  const db = new DatabaseSync(path.join(outbox, DATABASE_FILE), { readOnly: true });
  try {
    return db.prepare("SELECT hash, expires FROM used_proofs ORDER BY rowid").all() as {
      hash: string;
      expires: number;
    }[];
  } finally {
    db.close();
  }
}

it("a used token is refused as used after 10,001 other claims; a claim costs the same at any fill", async () => {
  // Warmed up on a store of its own, so the first figure is not the JIT's.
  await claimFresh((await botChecks({}, path.join(outbox, "warm-up"))).checks, 500);
  const { checks } = await botChecks();
  const first = checks.confirmation(CLIENT);
  expect(await confirmed(checks, first)).toEqual({ ok: true, via: "confirmation" });

  const empty = await claimFresh(checks, 200);
  const filler = await claimFresh(checks, 9_601);
  const full = await claimFresh(checks, 200);
  console.log(
    `CPU per confirmed claim in the store: ${empty.cpuMs.toFixed(2)} ms near empty, ${full.cpuMs.toFixed(2)} ms at 10,000 used`,
  );
  expect(empty.accepted + filler.accepted + full.accepted).toBe(10_001);

  expect(await confirmed(checks, first)).toEqual({ ok: false, problem: "used" });
}, 120_000);

it("a restart does not forget them: a new connection to the same file refuses a used token", async () => {
  const before = await botChecks();
  const token = before.checks.confirmation(CLIENT);
  const unused = before.checks.confirmation(CLIENT);
  expect(await confirmed(before.checks, token)).toEqual({ ok: true, via: "confirmation" });
  // The process stops: its connection closes.
  opened.splice(opened.indexOf(before.db), 1);
  before.db.close();

  const after = await botChecks();
  expect(await confirmed(after.checks, token)).toEqual({ ok: false, problem: "used" });
  // Only the used one: a token never claimed is still taken once.
  expect(await confirmed(after.checks, unused)).toEqual({ ok: true, via: "confirmation" });
  expect(await confirmed(after.checks, unused)).toEqual({ ok: false, problem: "used" });
});

it("a claim older than the lifetime leaves the store; a younger one stays", async () => {
  const env = { CONTACT_PROOF_MAX_MINUTES: "1" };
  const before = (await botChecks(env)).checks;
  for (let i = 0; i < 2; i++) expect((await confirmed(before, before.confirmation(CLIENT))).ok).toBe(true);
  const [old, young] = usedProofs();
  // The first was claimed two minutes ago: its lifetime of one minute ended a minute ago.
  const db = new DatabaseSync(path.join(outbox, DATABASE_FILE));
  db.prepare("UPDATE used_proofs SET expires = ? WHERE hash = ?").run(Date.now() - 60_000, old!.hash);
  db.close();

  // A process just started sweeps on its first claim.
  const after = (await botChecks(env)).checks;
  expect((await confirmed(after, after.confirmation(CLIENT))).ok).toBe(true);
  const left = usedProofs().map((row) => row.hash);
  expect(left).not.toContain(old!.hash);
  expect(left).toContain(young!.hash);
  expect(left).toHaveLength(2);
});
