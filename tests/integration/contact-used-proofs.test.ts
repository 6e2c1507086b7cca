// Without REDIS_URL a used confirmation stays used for its whole lifetime however many claims follow it,
// a claim costs the same at any fill, and claims past their lifetime leave the folder (decision 051).
import { mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createBotChecks, type BotChecks } from "~/contact/bot-checks.server";
import { CONFIRMATION_FIELD } from "~/contact/contract";
import { testConfig } from "../support/contact";
import { until } from "../support/until";

const CLIENT = "203.0.113.9";

let outbox: string;
beforeEach(async () => {
  outbox = await mkdtemp(path.join(tmpdir(), "used-proofs-"));
});
afterEach(() => rm(outbox, { recursive: true, force: true }));

const botChecks = (env: Record<string, string> = {}) =>
  createBotChecks(testConfig({ OUTBOX_DIR: outbox, CONTACT_CONFIRM_MIN_SECONDS: "0", ...env }), null);

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

it("a used token is refused as used after 10,001 other claims; a claim costs the same at any fill", async () => {
  // Warmed up on a folder of its own, so the first figure is not the JIT's.
  await claimFresh(botChecks({ OUTBOX_DIR: path.join(outbox, "warm-up") }), 500);
  const checks = botChecks();
  const first = checks.confirmation(CLIENT);
  expect(await confirmed(checks, first)).toEqual({ ok: true, via: "confirmation" });

  const empty = await claimFresh(checks, 200);
  const filler = await claimFresh(checks, 9_601);
  const full = await claimFresh(checks, 200);
  console.log(
    `CPU per confirmed claim without Redis: ${empty.cpuMs.toFixed(2)} ms near empty, ${full.cpuMs.toFixed(2)} ms at 10,000 used`,
  );
  expect(empty.accepted + filler.accepted + full.accepted).toBe(10_001);

  expect(await confirmed(checks, first)).toEqual({ ok: false, problem: "used" });
}, 120_000);

it("a claim older than the lifetime leaves the folder; a younger one stays", async () => {
  const env = { CONTACT_PROOF_MAX_MINUTES: "1" };
  const before = botChecks(env);
  for (let i = 0; i < 2; i++) expect((await confirmed(before, before.confirmation(CLIENT))).ok).toBe(true);
  const dir = path.join(outbox, "state", "used-proofs");
  const [old, young] = await readdir(dir);
  const twoMinutesAgo = new Date(Date.now() - 120_000);
  await utimes(path.join(dir, old!), twoMinutesAgo, twoMinutesAgo);

  // A process just started sweeps on its first claim.
  const after = botChecks(env);
  expect((await confirmed(after, after.confirmation(CLIENT))).ok).toBe(true);
  await until(async () => !(await readdir(dir)).includes(old!), "the old claim to go");
  expect(await readdir(dir)).toContain(young);
  expect(await readdir(dir)).toHaveLength(2);
});
