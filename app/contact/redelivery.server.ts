// Sends kept messages again by themselves, under the resend lock, within the provider's limits (decisions 030, 045-047).
import { rm } from "node:fs/promises";
import type { AppConfig } from "~/config.server";
import { tidyAndReport, type Notify } from "./housekeeping.server";
import { UNKNOWN_CLIENT_KEY } from "./client.server";
import type { Quotas } from "./limits.server";
import type { WaitingFor } from "./message-state";
import type { Relay, RelayWait } from "./relay.server";
import type { SharedState } from "./shared-state.server";
import {
  mayHaveArrived,
  readUndelivered,
  sentByItself,
  whileResending,
  writeEntry,
  type KeptAs,
  type UndeliveredEntry,
} from "./store.server";
import {
  failedByProvider,
  failingSeconds,
  failureOf,
  nextAttemptAt,
  redeliveryBackoffSeconds,
  setAsideAs,
  waitingOn,
} from "./delivery.server";
import { logContactEvent, type ContactLogger } from "./events.server";

type Settings = AppConfig["redelivery"];

/** The entry with its current wait on the provider closed: nothing after this counts until it fails again. */
function stretchClosed(entry: UndeliveredEntry, settings: Settings, now: number): UndeliveredEntry {
  const { failedAt: _, sending: __, ...rest } = entry;
  return { ...rest, failedSeconds: failingSeconds(entry, settings, now) };
}

type SentAgain =
  | { ok: true; attempts: number; uncertain: boolean }
  | { ok: false; waiting: RelayWait }
  | {
      ok: false;
      waiting?: undefined;
      attempts: number;
      for: KeptAs["for"];
      status: number;
      uncertain: boolean;
    };

export async function sendKept(
  file: string,
  entry: UndeliveredEntry,
  relay: Relay,
  {
    who,
    settings,
    stopping,
  }: { who: "redelivery" | "probe" | "owner"; settings: Settings; stopping?: () => boolean },
): Promise<SentAgain> {
  const attempts = (entry.attempts ?? 0) + 1;
  const wasUncertain = mayHaveArrived(entry);
  await writeEntry(file, { ...entry, sending: new Date().toISOString() });
  const sent = await relay.send(entry.template_params, { who, counted: entry.counted, stopping });
  if (sent.ok) {
    await rm(file, { force: true });
    return { ok: true, attempts, uncertain: wasUncertain };
  }
  const now = Date.now();
  const rest = stretchClosed(entry, settings, now);
  if (sent.waiting) {
    await writeEntry(file, { ...rest, for: sent.waiting });
    return { ok: false, waiting: sent.waiting };
  }
  if (sent.refusedForItself) {
    // Set aside for the owner with the provider's words; the rest go on.
    const aside = setAsideAs(sent.status, sent.text);
    await writeEntry(file, { ...rest, ...aside, attempts });
    return { ok: false, attempts, for: aside.for, status: sent.status, uncertain: wasUncertain };
  }
  const uncertain = wasUncertain || sent.uncertain;
  const waitingFor = waitingOn(failureOf(sent).reason, uncertain);
  await writeEntry(file, {
    ...rest,
    ...waitingFor,
    upstreamStatus: sent.status,
    uncertain,
    ...(sent.counted ? { counted: true } : {}),
    attempts,
    ...(failedByProvider(waitingFor) ? { failedAt: new Date(now).toISOString() } : {}),
    nextAttempt: new Date(
      now + redeliveryBackoffSeconds(attempts, uncertain, settings) * 1_000,
    ).toISOString(),
  });
  return { ok: false, attempts, for: waitingFor.for, status: sent.status, uncertain };
}

type RedeliveryOptions = {
  config: AppConfig;
  relay: Relay;
  quotas: Pick<Quotas, "networkShare">;
  notify: Notify;
  state: SharedState;
  log?: ContactLogger;
};

async function redeliverDue(
  { config, relay, quotas, log = logContactEvent }: RedeliveryOptions,
  stopping: () => boolean,
) {
  const settings = config.redelivery;
  const refusing = (await relay.provider.read()).state === "refusing";
  let probe = refusing && (await relay.provider.probeDue(config.providerProbeSeconds));
  if (refusing && !probe) return;
  await whileResending(config.mail.undeliveredDir, async ({ messages }) => {
    for (const { file } of messages) {
      if (stopping()) return;
      // Read again just before sending: a visitor's re-post may have delivered or changed it.
      const entry = await readUndelivered(file);
      if ("problem" in entry || !sentByItself(entry)) continue;
      if (failedByProvider(entry)) {
        if (failingSeconds(entry, settings, Date.now()) >= settings.forHours * 3_600) {
          await writeEntry(file, { ...entry, gaveUp: true, gaveUpAt: new Date().toISOString() });
          log({
            outcome: "gave_up",
            for: entry.for as WaitingFor,
            attempts: entry.attempts ?? 0,
            uncertain: mayHaveArrived(entry),
          });
          continue;
        }
        if (!probe && nextAttemptAt(entry, settings) > Date.now()) continue;
      }
      // Held for its network's share: sent as the share allows, its unit taken now (decision 052).
      const network = entry.network ?? UNKNOWN_CLIENT_KEY;
      if (entry.for === "network_share" && !(await quotas.networkShare(network)).ok) continue;
      const sent = await sendKept(file, entry, relay, {
        who: probe ? "probe" : "redelivery",
        settings,
        stopping,
      });
      probe = false;
      if (sent.ok) log({ outcome: "redelivered", attempts: sent.attempts, uncertain: sent.uncertain });
      else if (sent.waiting) return;
      else {
        log({
          outcome: "redelivery_failed",
          upstreamStatus: sent.status,
          attempts: sent.attempts,
          uncertain: sent.uncertain,
        });
        if (sent.for === "account") return;
      }
    }
  });
}

export type Redelivery = { stop(): Promise<void> };

export function startRedelivery(options: RedeliveryOptions): Redelivery {
  const log = options.log ?? logContactEvent;
  const tickMs = Math.min(30_000, Math.max(200, options.config.redelivery.firstSeconds * 500));
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = tidyAndReport(options.config, options.state, options.notify, log)
      .then(() => redeliverDue(options, () => stopping))
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
