// A small JSON file that replicas sharing one volume read and change in turn, under a lock file (decision 045).
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { lock } from "proper-lockfile";

export const LOCK_WAIT = { retries: 100, factor: 1.2, minTimeout: 5, maxTimeout: 100 };

/** Written aside and renamed, so a reader never sees half a file (decision 007); owner-only. */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${randomUUID()}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export async function readJsonFile<T>(file: string, fallback: T): Promise<T> {
  try {
    return { ...fallback, ...(JSON.parse(await readFile(file, "utf8")) as Partial<T>) };
  } catch {
    return fallback;
  }
}

export async function changeJsonFile<T, R>(
  file: string,
  fallback: T,
  change: (current: T) => { next: T | null; result: R },
): Promise<R> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const release = await lock(file, { realpath: false, stale: 10_000, retries: LOCK_WAIT });
  try {
    const { next, result } = change(await readJsonFile(file, fallback));
    if (next !== null) await writeJsonFile(file, next);
    return result;
  } finally {
    await release();
  }
}
