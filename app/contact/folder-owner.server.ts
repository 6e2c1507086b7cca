// Without REDIS_URL one server process owns OUTBOX_DIR: it holds a lock there while it runs, and a second
// process says at start that it shares the folder (decision 051).
import { hostname } from "node:os";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { lock } from "proper-lockfile";
import type { AppConfig } from "~/config.server";

type Logger = Pick<Console, "warn">;

/** Takes the folder when nobody holds it, else warns once; resolves with what gives it back at shutdown. */
export async function ownOutboxFolder(
  config: AppConfig,
  logger: Logger = console,
): Promise<{ release: () => Promise<void> }> {
  const nothing = { release: async () => {} };
  if (config.redisUrl) return nothing;
  const stateDir = config.mail.stateDir;
  const outboxDir = path.dirname(stateDir);
  const ownerFile = path.join(stateDir, "server.json");
  try {
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    const release = await lock(ownerFile, {
      realpath: false,
      onCompromised: () =>
        logger.warn(`[contact] the hold on OUTBOX_DIR ${outboxDir} was lost: another process may use it`),
    });
    await writeFile(ownerFile, JSON.stringify({ pid: process.pid, host: hostname() }), { mode: 0o600 });
    return {
      release: async () => {
        await rm(ownerFile, { force: true });
        await release().catch(() => {});
      },
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ELOCKED") {
      logger.warn(`[contact] could not hold OUTBOX_DIR ${outboxDir} (${code ?? String(error)})`);
      return nothing;
    }
    const owner = await readFile(ownerFile, "utf8")
      .then((text) => JSON.parse(text) as { pid: number; host: string })
      .catch(() => null);
    logger.warn(
      `[contact] another server process${owner ? ` (pid ${owner.pid} on ${owner.host})` : ""} uses OUTBOX_DIR ${outboxDir}: without REDIS_URL only one process may use it; set REDIS_URL to run several`,
    );
    return nothing;
  }
}
