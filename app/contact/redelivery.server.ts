// Sends the messages kept in undelivered/ again by themselves, each after a growing wait, until the
// provider takes one or it is too old to try (decision 030). One process at a time, under the resend lock.
import { rm } from "node:fs/promises";
import type { AppConfig, MailConfig } from "~/config.server";
import { buildSendBody, DEFAULT_RETRY, sendEmail, type RetryOptions } from "./emailjs.server";
import { readUndelivered, whileResending, writeEntry, type UndeliveredEntry } from "./store.server";
import { FAILURE, logContactEvent, type ContactLogger } from "./transport.server";

type Settings = AppConfig["redelivery"];

/** The first wait (longer when the provider may have it already), doubled after each attempt, capped. */
function waitSeconds(attempts: number, uncertain: boolean, settings: Settings): number {
  const first = uncertain ? settings.uncertainSeconds : settings.firstSeconds;
  return Math.min(Math.max(first, settings.maxSeconds), first * 2 ** attempts);
}

/** When the message is next due, in ms since the epoch. */
export function nextAttemptAt(entry: UndeliveredEntry, settings: Settings): number {
  if (entry.nextAttempt) return Date.parse(entry.nextAttempt);
  return Date.parse(entry.time) + waitSeconds(0, entry.uncertain, settings) * 1_000;
}

export type RedeliveryOptions = {
  mail: Extract<MailConfig, { mode: "relay" }>;
  settings: Settings;
  /** The site's daily send budget: a redelivery uses it like a visitor's message. */
  mayMail: () => Promise<boolean>;
  log?: ContactLogger;
  retry?: RetryOptions;
};

/** One pass over the folder; false when another process holds the lock. `stopping` ends it between messages. */
export async function redeliverDue(
  { mail, settings, mayMail, log = logContactEvent, retry = DEFAULT_RETRY }: RedeliveryOptions,
  stopping: () => boolean = () => false,
): Promise<boolean> {
  const done = await whileResending(mail.undeliveredDir, async ({ messages }) => {
    for (const { file } of messages) {
      if (stopping()) return;
      // Read again just before sending: a visitor's re-post may have delivered or changed it.
      const entry = await readUndelivered(file);
      if ("problem" in entry || entry.gaveUp) continue;
      const attempts = entry.attempts ?? 0;
      if (Date.now() - Date.parse(entry.time) > settings.forHours * 3_600_000) {
        await writeEntry(file, { ...entry, gaveUp: true });
        log({ outcome: "gave_up", reason: entry.reason, attempts, uncertain: entry.uncertain });
        continue;
      }
      if (nextAttemptAt(entry, settings) > Date.now()) continue;
      if (!(await mayMail())) return;
      const result = await sendEmail(mail.apiUrl, buildSendBody(mail, entry.template_params), retry);
      if (result.ok) {
        await rm(file, { force: true });
        log({ outcome: "redelivered", attempts: attempts + 1, uncertain: entry.uncertain });
        continue;
      }
      const uncertain = entry.uncertain || result.uncertain;
      const wait = waitSeconds(attempts + 1, uncertain, settings);
      await writeEntry(file, {
        ...entry,
        reason: FAILURE[result.failure].reason,
        upstreamStatus: result.status,
        uncertain,
        attempts: attempts + 1,
        nextAttempt: new Date(Date.now() + wait * 1_000).toISOString(),
      });
      log({ outcome: "redelivery_failed", upstreamStatus: result.status, attempts: attempts + 1, uncertain });
    }
  });
  return done !== null;
}

export type Redelivery = { stop(): Promise<void> };

/** Runs passes while the server runs; `stop` lets the message in flight finish and starts no other. */
export function startRedelivery(options: RedeliveryOptions): Redelivery {
  const log = options.log ?? logContactEvent;
  const tickMs = Math.min(30_000, Math.max(200, options.settings.firstSeconds * 500));
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = redeliverDue(options, () => stopping)
      .catch((error: Error) => log({ outcome: "redelivery_error", error: error.message }))
      .finally(() => {
        if (!stopping) timer = setTimeout(tick, tickMs).unref();
      });
  };
  timer = setTimeout(tick, tickMs).unref();
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}
