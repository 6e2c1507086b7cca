// The folders messages are kept in: the outbox, undelivered/ (decisions 007, 024, 025), spam/ (decision 029).
import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { lock } from "proper-lockfile";
import { z } from "zod";
import { LOCK_WAIT, writeJsonFile } from "~/lib/json-file.server";
import type { ContactFailureReason } from "./contract";
import { EMAILJS_LIB_VERSION, type TemplateParams } from "./emailjs.server";
import type { AppConfig } from "~/config.server";
import {
  HELD_FOR,
  messageId,
  redeliveryBackoffSeconds,
  WAITING_FOR,
  type HeldFor,
  type KeptState,
  type WaitingFor,
} from "./message-state.server";

type OutboxEntry = {
  lib_version: typeof EMAILJS_LIB_VERSION;
  template_params: TemplateParams;
};

function outboxEntry(params: TemplateParams): OutboxEntry {
  return { lib_version: EMAILJS_LIB_VERSION, template_params: params };
}

export async function writeToOutbox(dir: string, params: TemplateParams): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.json`);
  // Visitors' addresses are personal data: owner-only permissions.
  await writeFile(file, `${JSON.stringify(outboxEntry(params), null, 2)}\n`, { mode: 0o600, flag: "wx" });
  return file;
}

export type UndeliveredEntry = OutboxEntry & {
  time: string;
  /** What it waits for, or why it is held for the owner, in the states' words (message-state.server.ts). */
  for: WaitingFor | HeldFor;
  /** Waiting on the provider or the account: what the visitor was told, and a re-post is told again. */
  failure?: ContactFailureReason;
  upstreamStatus: number;
  /** Some attempt may have reached the provider: resending may duplicate it. */
  uncertain: boolean;
  signals?: string[];
  attempts?: number;
  nextAttempt?: string;
  /** The provider's last failure, whose wait runs until nextAttempt; with failedSeconds, the give-up clock (decision 052). */
  failedAt?: string;
  /** Seconds of waits the provider's earlier failures caused. */
  failedSeconds?: number;
  gaveUp?: boolean;
  /** When it was given up or set aside for the owner: retention counts from here (decision 052). */
  gaveUpAt?: string;
  /** What the provider said when it refused this message for itself. */
  providerText?: string;
  /** Set while an attempt runs: found later, that attempt may have reached the provider. */
  sending?: string;
  /** A unit of the send budget was spent on it: sending it again spends none (decision 045). */
  counted?: boolean;
  /** The sender's network: its daily share and a fair turn when a backlog drains (decision 052). */
  network?: string;
};

export type KeptAs = Pick<
  UndeliveredEntry,
  | "for"
  | "failure"
  | "upstreamStatus"
  | "uncertain"
  | "signals"
  | "counted"
  | "failedAt"
  | "network"
  | "gaveUpAt"
  | "providerText"
>;

export const UNDELIVERED_LIMIT = 1_000;

export const undeliveredFileName = (params: TemplateParams) => `${messageId(params)}.json`;

function isEntryFile(name: string): boolean {
  return name.endsWith(".json") && !name.startsWith(".");
}

async function entryFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(isEntryFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Its state, in the states' words: `spam` when it is in spam/. */
export function keptState(entry: UndeliveredEntry, spam: boolean): KeptState {
  if (spam) return { state: "held", for: "suspected_spam" };
  if (entry.for === "suspected_spam" || entry.for === "refused_by_provider")
    return { state: "held", for: entry.for };
  // An attempt that ran when the process stopped may have arrived.
  const waitingFor = entry.for === "provider" && mayHaveArrived(entry) ? "uncertain" : entry.for;
  return entry.gaveUp ? { state: "given_up", for: waitingFor } : { state: "waiting", for: waitingFor };
}

/** Held for the owner: the provider refused this message for itself. */
export const setAside = (entry: Pick<UndeliveredEntry, "for">) => entry.for === "refused_by_provider";

/** Not given up, nor set aside for the owner (decision 052). */
export const sentByItself = (entry: UndeliveredEntry) => !entry.gaveUp && !setAside(entry);

/** The messages still to be sent by themselves. */
export async function countUndelivered(dir: string): Promise<number> {
  return (await listUndelivered(dir)).messages.filter(({ entry }) => sentByItself(entry)).length;
}

async function locked<T>(dir: string, name: string, wait: boolean, work: () => Promise<T>): Promise<T> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Locks by distinct paths: proper-lockfile keeps one lock per path in a process.
  const release = await lock(path.join(dir, `.${name}`), {
    realpath: false,
    stale: 10_000,
    retries: wait ? LOCK_WAIT : 0,
  });
  try {
    return await work();
  } finally {
    await release();
  }
}

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

/** A file of the previous version: its `reason`, a wait or else the provider's failure, in the states' words. */
function inTheStatesWords(reason: string, uncertain: boolean): Pick<UndeliveredEntry, "for" | "failure"> {
  const word = EARLIER_WORDS[reason];
  if (word) return word === "account" ? { for: word, failure: "provider_refusing" } : { for: word };
  return { for: uncertain ? "uncertain" : "provider", failure: reason as ContactFailureReason };
}

const ENTRY = z.object({
  lib_version: z.string(),
  template_params: z.object({
    name: z.string(),
    from_email: z.string(),
    subject: z.string(),
    message: z.string(),
    to_name: z.string(),
  }),
  time: z.unknown().optional(),
  for: z.enum([...WAITING_FOR, ...HELD_FOR]).optional(),
  failure: z.string().optional(),
  /** The previous version's one word for what it waited for (or a failure): read as `for` (and `failure`). */
  reason: z.string().optional(),
  upstreamStatus: z.number(),
  uncertain: z.boolean(),
  signals: z.array(z.string()).optional(),
  attempts: z.number().optional(),
  nextAttempt: z.string().optional(),
  failedAt: z.string().optional(),
  failedSeconds: z.number().optional(),
  gaveUp: z.boolean().optional(),
  gaveUpAt: z.string().optional(),
  providerText: z.string().max(2_000).optional(),
  sending: z.string().optional(),
  counted: z.boolean().optional(),
  network: z.string().optional(),
});

const ENTRY_MAX_BYTES = 64 * 1024;

/** A time in the future or none that can be read: the message arrived when its file was written, at the latest now (decision 052). */
function arrival(time: unknown, writtenMs: number): string {
  const now = Date.now();
  const ms = typeof time === "string" ? Date.parse(time) : Number.NaN;
  return ms <= now ? (time as string) : new Date(Math.min(writtenMs, now)).toISOString();
}

/** Links and FIFOs are not read (decision 025). */
export async function readUndelivered(file: string): Promise<UndeliveredEntry | { problem: string }> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === "ELOOP" ? "a link, not a file" : `cannot be opened (${code})` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { problem: "not a regular file" };
    if (stat.size > ENTRY_MAX_BYTES) return { problem: `too large (${stat.size} bytes)` };
    const parsed = ENTRY.safeParse(JSON.parse(await handle.readFile("utf8")));
    if (!parsed.success || !(parsed.data.for ?? parsed.data.reason)) return { problem: "not a kept message" };
    const { reason, ...entry } = parsed.data;
    const time = arrival(entry.time, stat.mtimeMs);
    return {
      ...entry,
      ...(reason && !entry.for ? inTheStatesWords(reason, entry.uncertain) : {}),
      time,
    } as UndeliveredEntry;
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message})` };
  } finally {
    await handle.close();
  }
}

export type Listed = {
  messages: { file: string; entry: UndeliveredEntry }[];
  skipped: { file: string; problem: string }[];
};

export async function listUndelivered(dir: string): Promise<Listed> {
  const listed: Listed = { messages: [], skipped: [] };
  for (const name of await entryFiles(dir)) {
    const file = path.join(dir, name);
    const entry = await readUndelivered(file);
    if ("problem" in entry) listed.skipped.push({ file, problem: entry.problem });
    else listed.messages.push({ file, entry });
  }
  listed.messages.sort((a, b) => a.entry.time.localeCompare(b.entry.time));
  return listed;
}

/**
 * The order a backlog drains in: one message per network per round, each round by time, so many messages
 * from a few networks never put another network's behind them (decision 052). A file without a network is
 * its own.
 */
export function fairOrder(messages: Listed["messages"]): Listed["messages"] {
  const turns = new Map<string, number>();
  const ranked = messages.map((item) => {
    const network = item.entry.network ?? item.file;
    const round = turns.get(network) ?? 0;
    turns.set(network, round + 1);
    return { item, round };
  });
  return ranked.sort((a, b) => a.round - b.round).map(({ item }) => item);
}

export type StoreOutcome = "new" | "existing" | "full" | "client_full";

export type StoreAllowance = false | { first: boolean };

/** Kept for clients that have left nothing, so a flood cannot close the folder (decision 024). */
export const RESERVED_FOR_NEW_CLIENTS = 200;

type StoreOptions = {
  mayStore?: () => Promise<StoreAllowance>;
  evictOldest?: (evicted: UndeliveredEntry) => void;
  now?: Date;
};

/** The allowance (a Redis call) is asked before the folder's lock, which covers counting and writing. */
export async function storeUndelivered(
  dir: string,
  params: TemplateParams,
  failure: KeptAs,
  { mayStore, evictOldest, now = new Date() }: StoreOptions = {},
): Promise<StoreOutcome> {
  const file = path.join(dir, undeliveredFileName(params));
  const kept = () => findKept(dir, params);
  let allowance: StoreAllowance = { first: true };
  if (!(await kept()) && mayStore) {
    allowance = await mayStore();
    if (!allowance) return "client_full";
  }
  const limit = allowance.first ? UNDELIVERED_LIMIT : UNDELIVERED_LIMIT - RESERVED_FOR_NEW_CLIENTS;
  return inTurn(dir, () =>
    locked(dir, "store", true, async () => {
      const existing = await kept();
      // Only kept messages take a place (decision 052); files are read only when their names alone fill it.
      const full = async () =>
        (await entryFiles(dir)).length >= limit && (await listUndelivered(dir)).messages.length >= limit;
      if (!existing && (await full())) {
        const oldest = evictOldest && (await listUndelivered(dir)).messages[0];
        if (!oldest) return "full";
        await rm(oldest.file, { force: true });
        evictOldest(oldest.entry);
      }
      await writeEntry(file, {
        ...existing,
        ...outboxEntry(params),
        time: existing?.time ?? now.toISOString(),
        for: failure.for,
        failure: failure.failure,
        upstreamStatus: failure.upstreamStatus,
        uncertain: Boolean(existing?.uncertain) || failure.uncertain,
        ...(failure.signals ? { signals: failure.signals } : {}),
        ...(failure.failedAt ? { failedAt: failure.failedAt } : {}),
        ...(failure.gaveUpAt ? { gaveUpAt: failure.gaveUpAt } : {}),
        ...(failure.providerText ? { providerText: failure.providerText } : {}),
        ...(failure.network ? { network: failure.network } : {}),
        ...(existing?.counted || failure.counted ? { counted: true } : {}),
      });
      return existing ? "existing" : "new";
    }),
  );
}

const turns = new Map<string, Promise<unknown>>();

function inTurn<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const next = (turns.get(dir) ?? Promise.resolve()).then(work, work);
  turns.set(
    dir,
    next.catch(() => undefined),
  );
  return next;
}

export const mayHaveArrived = (entry: UndeliveredEntry) => entry.uncertain || Boolean(entry.sending);

type Settings = AppConfig["redelivery"];

export function nextAttemptAt(entry: UndeliveredEntry, settings: Settings): number {
  if (entry.nextAttempt) return Date.parse(entry.nextAttempt);
  const failed = Date.parse(entry.failedAt ?? entry.time);
  return failed + redeliveryBackoffSeconds(0, mayHaveArrived(entry), settings) * 1_000;
}

/**
 * The give-up clock: the waits the provider's failures caused, each counted up to when its next attempt
 * was due, so time held for the budget, the pace, the network's share or the owner never counts (decision 052).
 */
export function failingSeconds(entry: UndeliveredEntry, settings: Settings, now: number): number {
  const earlier = entry.failedSeconds ?? 0;
  if (!entry.failedAt) return earlier;
  const waited = Math.min(now, nextAttemptAt(entry, settings)) - Date.parse(entry.failedAt);
  return earlier + Math.max(0, waited) / 1_000;
}

export async function findKept(dir: string, params: TemplateParams): Promise<UndeliveredEntry | null> {
  const entry = await readUndelivered(path.join(dir, undeliveredFileName(params)));
  return "problem" in entry ? null : entry;
}

export const writeEntry = (file: string, entry: UndeliveredEntry) => writeJsonFile(file, entry);

export async function removeUndelivered(dir: string, params: TemplateParams): Promise<boolean> {
  try {
    await rm(path.join(dir, undeliveredFileName(params)));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Under the folder's resend lock: at once, or null when another holds it; with `wait`, after it. */
export function whileResending<T>(
  dir: string,
  resend: (listed: Listed) => Promise<T>,
  { wait = false } = {},
): Promise<T | null> {
  return locked(dir, "resend", wait, async () => {
    const listed = await listUndelivered(dir);
    const own = (entry: UndeliveredEntry) => path.join(dir, undeliveredFileName(entry.template_params));
    const chosen = new Map<string, Listed["messages"][number]>();
    for (const item of listed.messages) {
      if (!chosen.has(own(item.entry)) || item.file === own(item.entry)) chosen.set(own(item.entry), item);
    }
    for (const item of listed.messages) {
      if (chosen.get(own(item.entry)) !== item) await rm(item.file, { force: true });
    }
    const messages: Listed["messages"] = [];
    for (const [file, item] of chosen) {
      if (item.file !== file) await rename(item.file, file);
      messages.push({ file, entry: item.entry });
    }
    return resend({ messages: fairOrder(messages), skipped: listed.skipped });
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ELOCKED") return null;
    throw error;
  });
}
