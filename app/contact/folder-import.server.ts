// A previous version's outbox folder, imported once into the store: its kept messages in their states (held
// stays held, given up stays given up), its shared records, its used proofs; the folders are then renamed.
import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ContactFailureReason } from "./contract";
import type { Database } from "./database.server";
import {
  HELD_FOR,
  messageId,
  WAITING_FOR,
  type HeldFor,
  type Message,
  type WaitingFor,
} from "./message-state.server";

const ENTRY = z.object({
  template_params: z.object({
    name: z.string(),
    from_email: z.string(),
    subject: z.string(),
    message: z.string(),
    to_name: z.string(),
  }),
  time: z.string().optional(),
  for: z.enum([...WAITING_FOR, ...HELD_FOR]).optional(),
  failure: z.string().optional(),
  /** The version before: one word for what it waited for, or the provider's failure. */
  reason: z.string().optional(),
  uncertain: z.boolean().default(false),
  signals: z.array(z.string()).optional(),
  attempts: z.number().optional(),
  nextAttempt: z.string().optional(),
  gaveUp: z.boolean().optional(),
  gaveUpAt: z.string().optional(),
  providerText: z.string().max(2_000).optional(),
  sending: z.string().optional(),
  counted: z.boolean().optional(),
  network: z.string().optional(),
});
type Entry = z.infer<typeof ENTRY>;

const EARLIER_WORDS: Record<string, WaitingFor | HeldFor> = {
  provider_refusing: "account",
  paced: "pace",
  over_daily_limit: "day_limit",
  over_monthly_limit: "month_limit",
  over_network_limit: "network_share",
  queue_unreachable: "queue",
  suspected_spam: "suspected_spam",
  refused_by_provider: "refused_by_provider",
};

const ENTRY_MAX_BYTES = 64 * 1024;
const RECORDS = ["budget", "provider", "alerts", "owner", "refusals"];

/** One kept file as a message in the states' words; null when it is not one (it stays in the renamed folder). */
function messageOf(file: string, spam: boolean, now: number): Message | null {
  // A link is never followed, nor a FIFO opened: only regular files are read.
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size > ENTRY_MAX_BYTES) return null;
  let entry: Entry;
  try {
    const parsed = ENTRY.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!parsed.success) return null;
    entry = parsed.data;
  } catch {
    return null;
  }
  const word = entry.for ?? EARLIER_WORDS[entry.reason ?? ""];
  const uncertain = entry.uncertain || Boolean(entry.sending);
  const waitingFor: WaitingFor | HeldFor = spam
    ? "suspected_spam"
    : (word ?? (uncertain ? "uncertain" : "provider"));
  const failure = (entry.failure ?? (word ? undefined : entry.reason)) as ContactFailureReason | undefined;
  const received = Math.min(Date.parse(entry.time ?? "") || stat.mtimeMs, now);
  const held = waitingFor === "suspected_spam" || waitingFor === "refused_by_provider";
  const id = messageId(entry.template_params);
  const state = held
    ? ({ state: "held", for: waitingFor as HeldFor } as const)
    : entry.gaveUp
      ? ({ state: "given_up", for: waitingFor as WaitingFor } as const)
      : ({ state: "waiting", for: waitingFor as WaitingFor } as const);
  return {
    ...state,
    id,
    params: entry.template_params,
    // A file without a network is its own: it takes no other message's turn.
    network: entry.network ?? `file:${id}`,
    receivedAt: received,
    since: Date.parse(entry.gaveUpAt ?? "") || received,
    attempts: entry.attempts ?? 0,
    nextAttempt: state.state === "waiting" ? Math.min(Date.parse(entry.nextAttempt ?? "") || now, now) : null,
    uncertain,
    counted: Boolean(entry.counted),
    // Only one still waiting for its network's share has not spent a unit of it.
    shared: waitingFor !== "network_share",
    ...(failure ? { failure } : {}),
    ...(entry.providerText ? { providerText: entry.providerText } : {}),
    ...(entry.signals ? { signals: entry.signals } : {}),
  };
}

const files = (dir: string) =>
  readdirSync(dir)
    .filter((name) => !name.startsWith("."))
    .map((name) => path.join(dir, name));

/** Imports what a previous version left in `outboxDir`, once: the folders are renamed `*.imported`. */
export function importFolder(db: Database, outboxDir: string, proofTtlMs: number, now = Date.now()): number {
  let imported = 0;
  const dir = (name: string) => path.join(outboxDir, name);
  for (const [name, spam] of [
    ["undelivered", false],
    ["spam", true],
  ] as const) {
    if (!existsSync(dir(name))) continue;
    for (const file of files(dir(name)).filter((f) => f.endsWith(".json"))) {
      const message = messageOf(file, spam, now);
      if (message && db.add(message)) imported += 1;
    }
    renameSync(dir(name), `${dir(name)}.imported`);
  }
  const state = dir("state");
  if (existsSync(state)) {
    for (const record of RECORDS) {
      const file = path.join(state, `${record}.json`);
      if (!existsSync(file)) continue;
      try {
        const value = JSON.parse(readFileSync(file, "utf8")) as object;
        void db.state.change(record, {}, () => ({ next: value, result: undefined }));
      } catch {
        // Not JSON: left in the renamed folder.
      }
    }
    const proofs = path.join(state, "used-proofs");
    if (existsSync(proofs)) {
      for (const file of files(proofs)) {
        const made = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? now;
        if (now - made < proofTtlMs) db.claimProof(path.basename(file), made, proofTtlMs);
      }
    }
    renameSync(state, `${state}.imported`);
  }
  return imported;
}
