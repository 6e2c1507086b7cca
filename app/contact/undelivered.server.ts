// Messages the provider refused or failed on, kept in OUTBOX_DIR/undelivered
// so none is lost: one owner-only JSON file per message, named by a hash of
// sender, subject and text, so an identical re-post finds the same file.
// `npm run outbox` lists and resends them (server/outbox-cli.ts).
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
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

/**
 * The most files the folder takes. A failure gives the visitor's quota back,
 * so during an outage this bounds what a flood of distinct messages can write.
 */
export const UNDELIVERED_LIMIT = 1_000;

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

export async function readUndelivered(file: string): Promise<UndeliveredEntry> {
  return JSON.parse(await readFile(file, "utf8")) as UndeliveredEntry;
}

async function readIfPresent(file: string): Promise<UndeliveredEntry | null> {
  try {
    return await readUndelivered(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Every waiting message with its file, oldest first. */
export async function listUndelivered(dir: string): Promise<{ file: string; entry: UndeliveredEntry }[]> {
  const files = (await entryFiles(dir)).map((name) => path.join(dir, name));
  const listed = await Promise.all(files.map(async (file) => ({ file, entry: await readUndelivered(file) })));
  return listed.sort((a, b) => a.entry.time.localeCompare(b.entry.time));
}

export type StoreOutcome = "new" | "existing" | "full";

/**
 * Keeps the message in `dir`. An identical message already there is updated
 * in place (last reason, uncertain if any attempt was), never stored twice.
 */
export async function storeUndelivered(
  dir: string,
  params: TemplateParams,
  failure: UndeliveredFailure,
  now = new Date(),
): Promise<StoreOutcome> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, undeliveredFileName(params));
  const previous = await readIfPresent(file);
  if (!previous && (await countUndelivered(dir)) >= UNDELIVERED_LIMIT) return "full";
  const entry: UndeliveredEntry = {
    ...outboxEntry(params),
    time: previous?.time ?? now.toISOString(),
    reason: failure.reason,
    upstreamStatus: failure.upstreamStatus,
    uncertain: Boolean(previous?.uncertain) || failure.uncertain,
  };
  // Written aside and renamed, so a reader never sees half a file. Visitors'
  // addresses are personal data: owner-only permissions.
  const temporary = path.join(dir, `.${randomUUID()}.tmp`);
  await writeFile(temporary, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  await rename(temporary, file);
  return previous ? "existing" : "new";
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
