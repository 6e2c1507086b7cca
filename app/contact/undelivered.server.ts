// Messages the provider refused or failed on, kept in OUTBOX_DIR/undelivered
// so none is lost: one owner-only JSON file per message, named by a hash of
// sender, subject and text, so an identical re-post finds the same file.
// `npm run outbox` lists and resends them (server/outbox-cli.ts). The folder
// may be shared by replicas: writes and resends take a lock file in it
// (proper-lockfile), decisions 024 and 025.
import { createHash, randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { lock } from "proper-lockfile";
import { z } from "zod";
import type { ContactFailureReason } from "./contract";
import type { TemplateParams } from "./emailjs.server";
import { outboxEntry, type OutboxEntry } from "./outbox.server";

export type UndeliveredEntry = OutboxEntry & {
  /** When the message first failed (ISO 8601). */
  time: string;
  /** Why the last attempt failed. */
  reason: ContactFailureReason;
  /** The provider's last HTTP status, 0 when none came back. */
  upstreamStatus: number;
  /** Some attempt may have reached the provider (a timeout, a 5xx, a broken connection): resending may duplicate it. */
  uncertain: boolean;
};

export type UndeliveredFailure = Pick<UndeliveredEntry, "reason" | "upstreamStatus" | "uncertain">;

/** The most files the folder takes: the bound on what an outage can leave, whoever sends. */
export const UNDELIVERED_LIMIT = 1_000;

/** The name of a message's file: the same message, the same name, wherever it came from. */
export function undeliveredFileName(params: TemplateParams): string {
  const key = JSON.stringify([params.from_email, params.subject, params.message]);
  return `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`;
}

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

/** How many messages wait in `dir`; 0 when it does not exist. */
export async function countUndelivered(dir: string): Promise<number> {
  return (await entryFiles(dir)).length;
}

/** Holds the folder's lock named `name` while `work` runs; other processes wait (`wait`) or fail with ELOCKED. */
async function locked<T>(dir: string, name: string, wait: boolean, work: () => Promise<T>): Promise<T> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Locks by distinct paths: proper-lockfile keeps one lock per path in a process.
  const release = await lock(path.join(dir, `.${name}`), {
    realpath: false,
    // A crashed holder's lock is taken over once it has not been refreshed for 10 s.
    stale: 10_000,
    retries: wait ? { retries: 100, factor: 1.2, minTimeout: 5, maxTimeout: 100 } : 0,
  });
  try {
    return await work();
  } finally {
    await release();
  }
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
  time: z.string(),
  reason: z.string(),
  upstreamStatus: z.number(),
  uncertain: z.boolean(),
});

/** Larger than any message the form accepts; a bigger file is not one of ours. */
const ENTRY_MAX_BYTES = 64 * 1024;

/**
 * The message in `file`, or why it is not one. Links and special files (a
 * FIFO would block a read for ever) are not opened: O_NOFOLLOW, O_NONBLOCK,
 * then a regular file of a sane size or nothing.
 */
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
    return parsed.success ? (parsed.data as UndeliveredEntry) : { problem: "not a kept message" };
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message})` };
  } finally {
    await handle.close();
  }
}

export type Listed = {
  /** Every waiting message with its file, oldest first. */
  messages: { file: string; entry: UndeliveredEntry }[];
  /** Files that are not messages, with why: named, never opened as one. */
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

/** "new" and "existing" are kept; the others say why a message was not. */
export type StoreOutcome = "new" | "existing" | "full" | "client_full";

/**
 * Keeps the message in `dir`. An identical message already there is updated
 * in place (last reason, uncertain if any attempt was), never stored twice.
 * A new one needs room in the folder and, when `mayKeep` is given, the
 * sender's allowance (asked last, so a full folder costs them nothing).
 */
export function storeUndelivered(
  dir: string,
  params: TemplateParams,
  failure: UndeliveredFailure,
  mayKeep?: () => Promise<boolean>,
  now = new Date(),
): Promise<StoreOutcome> {
  // Counting and writing under one lock, so the limit holds under concurrency and across replicas.
  return locked(dir, "store", true, async () => {
    const file = path.join(dir, undeliveredFileName(params));
    const previous = await readUndelivered(file);
    const existing = "problem" in previous ? null : previous;
    if (!existing) {
      if ((await countUndelivered(dir)) >= UNDELIVERED_LIMIT) return "full";
      if (mayKeep && !(await mayKeep())) return "client_full";
    }
    const entry: UndeliveredEntry = {
      ...outboxEntry(params),
      time: existing?.time ?? now.toISOString(),
      reason: failure.reason,
      upstreamStatus: failure.upstreamStatus,
      uncertain: Boolean(existing?.uncertain) || failure.uncertain,
    };
    // Written aside and renamed, so a reader never sees half a file; the part
    // is removed when the write fails (a full disk). Visitors' addresses are
    // personal data: owner-only permissions.
    const temporary = path.join(dir, `.${randomUUID()}.tmp`);
    try {
      await writeFile(temporary, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600, flag: "wx" });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return existing ? "existing" : "new";
  });
}

/** Forgets the stored copy of a message that has now been delivered; true when there was one. */
export async function removeUndelivered(dir: string, params: TemplateParams): Promise<boolean> {
  try {
    await rm(path.join(dir, undeliveredFileName(params)));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * Runs `resend` over the waiting messages while holding the folder's resend
 * lock, so two resends never send one message twice; null when another
 * resend holds it. Each message is first given its own name (the hash of its
 * content): a renamed copy is renamed back, a second copy of one message is
 * removed, so it is sent once and a failure updates the one file.
 */
export function whileResending<T>(dir: string, resend: (listed: Listed) => Promise<T>): Promise<T | null> {
  return locked(dir, "resend", false, async () => {
    const listed = await listUndelivered(dir);
    const own = (entry: UndeliveredEntry) => path.join(dir, undeliveredFileName(entry.template_params));
    // One file per message: the one already under its own name, else the first found.
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
    return resend({ messages, skipped: listed.skipped });
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ELOCKED") return null;
    throw error;
  });
}
