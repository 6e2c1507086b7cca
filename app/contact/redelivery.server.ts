// Sends the messages kept in undelivered/ again by themselves, under the resend lock (decision 030).
import { rm } from "node:fs/promises";
import type { AppConfig, MailConfig } from "~/config.server";
import { buildSendBody, DEFAULT_RETRY, sendEmail, type RetryOptions } from "./emailjs.server";
import {
  mayHaveArrived,
  readUndelivered,
  whileResending,
  writeEntry,
  type UndeliveredEntry,
} from "./store.server";
import { FAILURE, logContactEvent, type ContactLogger } from "./transport.server";

type Settings = AppConfig["redelivery"];

function waitSeconds(attempts: number, uncertain: boolean, settings: Settings): number {
  const first = uncertain ? settings.uncertainSeconds : settings.firstSeconds;
  return Math.min(Math.max(first, settings.maxSeconds), first * 2 ** attempts);
}

export function nextAttemptAt(entry: UndeliveredEntry, settings: Settings): number {
  if (entry.nextAttempt) return Date.parse(entry.nextAttempt);
  return Date.parse(entry.time) + waitSeconds(0, mayHaveArrived(entry), settings) * 1_000;
}

type RedeliveryOptions = {
  mail: Extract<MailConfig, { mode: "relay" }>;
  settings: Settings;
  mayMail: () => Promise<boolean>;
  log?: ContactLogger;
  retry?: RetryOptions;
};

type SentAgain = { ok: boolean; attempts: number; reason: string; status: number; uncertain: boolean };

/** Marked as being sent first, so a process killed mid-send leaves it as possibly delivered. */
export async function sendKept(
  file: string,
  entry: UndeliveredEntry,
  { mail, settings, retry = DEFAULT_RETRY }: Pick<RedeliveryOptions, "mail" | "settings" | "retry">,
): Promise<SentAgain> {
  const attempts = (entry.attempts ?? 0) + 1;
  const wasUncertain = mayHaveArrived(entry);
  await writeEntry(file, { ...entry, sending: new Date().toISOString() });
  const result = await sendEmail(mail.apiUrl, buildSendBody(mail, entry.template_params), retry);
  if (result.ok) {
    await rm(file, { force: true });
    return { ok: true, attempts, reason: "sent", status: result.status, uncertain: wasUncertain };
  }
  const uncertain = wasUncertain || result.uncertain;
  const { reason } = FAILURE[result.failure];
  const { sending: _, ...rest } = entry;
  await writeEntry(file, {
    ...rest,
    reason,
    upstreamStatus: result.status,
    uncertain,
    attempts,
    nextAttempt: new Date(Date.now() + waitSeconds(attempts, uncertain, settings) * 1_000).toISOString(),
  });
  return { ok: false, attempts, reason, status: result.status, uncertain };
}

async function redeliverDue(options: RedeliveryOptions, stopping: () => boolean = () => false) {
  const { settings, mayMail, log = logContactEvent } = options;
  const done = await whileResending(options.mail.undeliveredDir, async ({ messages }) => {
    for (const { file } of messages) {
      if (stopping()) return;
      // Read again just before sending: a visitor's re-post may have delivered or changed it.
      const entry = await readUndelivered(file);
      if ("problem" in entry || entry.gaveUp) continue;
      if (Date.now() - Date.parse(entry.time) > settings.forHours * 3_600_000) {
        await writeEntry(file, { ...entry, gaveUp: true });
        log({
          outcome: "gave_up",
          reason: entry.reason,
          attempts: entry.attempts ?? 0,
          uncertain: mayHaveArrived(entry),
        });
        continue;
      }
      if (nextAttemptAt(entry, settings) > Date.now()) continue;
      if (!(await mayMail())) return;
      const sent = await sendKept(file, entry, options);
      if (sent.ok) log({ outcome: "redelivered", attempts: sent.attempts, uncertain: sent.uncertain });
      else
        log({
          outcome: "redelivery_failed",
          upstreamStatus: sent.status,
          attempts: sent.attempts,
          uncertain: sent.uncertain,
        });
    }
  });
  return done !== null;
}

export type Redelivery = { stop(): Promise<void> };

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
