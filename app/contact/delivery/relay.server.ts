// One message to the provider within its limits: the budget, the pace, the account's state (decisions 045-047).
import type { AppConfig } from "~/config.server";
import { sleep, type SharedState } from "../store/store.server";
import type { OwnerAlert } from "../alerts/alerts.server";
import { createBudget, type Budget } from "./budget.server";
import { buildSendBody, RETRIES_WITHIN_A_REQUEST, sendEmail, type RetryOptions } from "./emailjs.server";
import { createProvider, type Provider } from "./provider.server";
import type { ContactLogger } from "../events.server";
import {
  FAILURE,
  messageId,
  type RelayOutcome,
  type Sender,
  type TemplateParams,
} from "../rules/message.server";
import { accountRefusal } from "../rules/refusals.server";
import { goesWhileRefused, paceIntervalMs, RETRY_AFTER_CAP_MS, slotWaitMs } from "../rules/rulebook.server";
import { providerWords } from "../rules/words.server";

export type Relay = {
  send(
    params: TemplateParams,
    how: { who: Sender; counted?: boolean; stopping?: () => boolean },
  ): Promise<RelayOutcome>;
  budget: Budget;
  provider: Provider;
};

const DEFAULT_PAUSE_MS = 5_000;

/** The provider's pace: a shared record in the store, for every process on it (decisions 046, 053). */
export type Pacing = {
  slot(who: "visitor" | "background", maxWaitMs: number, stopping?: () => boolean): Promise<boolean>;
  /** The next slot is a whole interval after the answer: the request arrived before it, however slow to leave. */
  answered(at: number): Promise<void>;
  pause(ms: number): Promise<void>;
};

// The background comes this much after a slot frees, so visitors go first.
const VISITOR_POLL_MS = 25;
const BACKGROUND_GRACE_MS = 60;
const BACKGROUND_POLL_MS = 250;

function sharedPacing(maxPerSecond: number, state: SharedState): Pacing {
  const intervalMs = paceIntervalMs(maxPerSecond);
  const graceMs = Math.min(BACKGROUND_GRACE_MS, Math.ceil(intervalMs / 4));
  type Pace = { freeAt: number };
  const PACE = "pace";

  const tryTake = () =>
    state.change<Pace, number>(PACE, { freeAt: 0 }, ({ freeAt }) => {
      const now = Date.now();
      return now < freeAt
        ? { next: null, result: freeAt - now }
        : { next: { freeAt: now + intervalMs }, result: 0 };
    });

  return {
    async slot(who, maxWaitMs, stopping = () => false) {
      const deadline = Date.now() + maxWaitMs;
      for (;;) {
        if (stopping()) return false;
        const wait = await tryTake();
        if (wait === 0) return true;
        const next =
          who === "visitor" ? Math.min(wait, VISITOR_POLL_MS) : Math.min(wait + graceMs, BACKGROUND_POLL_MS);
        if (Date.now() + wait > deadline) return false;
        await sleep(next);
      }
    },
    answered: (at) =>
      state.change<Pace, void>(PACE, { freeAt: 0 }, ({ freeAt }) => ({
        next: at + intervalMs > freeAt ? { freeAt: at + intervalMs } : null,
        result: undefined,
      })),
    pause: (ms) =>
      state.change<Pace, void>(PACE, { freeAt: 0 }, ({ freeAt }) => ({
        next: { freeAt: Math.max(freeAt, Date.now() + ms) },
        result: undefined,
      })),
  };
}

type RelayParts = { budget: Budget; pacing: Pacing; provider: Provider };

export function relayParts(config: AppConfig, state: SharedState): RelayParts {
  return {
    budget: createBudget(config.budget, state),
    pacing: sharedPacing(config.maxPerSecond, state),
    provider: createProvider(config.mail, state),
  };
}

export function createRelay(
  config: AppConfig,
  { budget, pacing, provider }: RelayParts,
  {
    log,
    notify,
    retry = RETRIES_WITHIN_A_REQUEST,
    waiting,
  }: {
    log: ContactLogger;
    notify: (alert: OwnerAlert) => void;
    retry?: RetryOptions;
    waiting: () => Promise<number>;
  },
): Relay {
  const mail = config.mail;
  // The provider's state after an answer is a note, never a reason to resend; the budget and the pace fail closed.
  const orElse = async <T>(work: Promise<T>, fallback: T): Promise<T> => {
    try {
      return await work;
    } catch (error) {
      log({ outcome: "state_error", error: (error as Error).message });
      return fallback;
    }
  };
  return {
    budget,
    provider,
    async send(params, { who, counted = false, stopping }) {
      if (mail.mode !== "relay") throw new Error("the relay needs the EmailJS ids");
      if (!goesWhileRefused(who) && (await provider.read()).state === "refusing") {
        return { ok: false, waiting: "account" };
      }
      let taken = false;
      if (!counted) {
        const unit = await budget.take();
        taken = true;
        if (!unit.ok) return { ok: false, waiting: unit.waiting, until: unit.turnsAt.getTime() };
        if (unit.crossed) {
          const { month } = await budget.usage();
          notify({
            kind: "quota",
            percent: unit.crossed === 100 ? 100 : 80,
            used: month.used,
            limit: month.limit,
            period: "month",
          });
        }
      }
      let inSlot = false;
      const slot = async (maxWaitMs: number) => {
        const free = await pacing.slot(
          who === "visitor" ? "visitor" : "background",
          Math.min(maxWaitMs, slotWaitMs(who)),
          stopping,
        );
        inSlot ||= free;
        return free;
      };
      const result = await sendEmail(mail.apiUrl, buildSendBody(mail, params), retry, slot);
      if (inSlot) void orElse(pacing.answered(Date.now()), undefined);
      if (result.ok || result.failure !== "paced") {
        log({
          outcome: "relayed",
          ok: result.ok,
          upstreamStatus: result.status,
          attempts: result.attempts,
          durationMs: result.durationMs,
          ...(result.ok ? {} : { providerText: providerWords(result.text) }),
        });
      }
      if (result.ok) {
        const refusalEnded = await orElse(provider.back(), false);
        if (refusalEnded) {
          log({ outcome: "provider_back" });
          notify({ kind: "provider_back", waiting: await waiting().catch(() => 0) });
        }
        return { ok: true, status: result.status, attempts: result.attempts, refusalEnded };
      }
      const spent = counted || result.uncertain;
      if (!spent && taken) await orElse(budget.giveBack(), undefined);
      if (result.failure === "paced") return { ok: false, waiting: "pace" };
      if (result.status === 429 || (result.status === 503 && result.retryAfterMs !== null)) {
        const askedMs = result.retryAfterMs ?? DEFAULT_PAUSE_MS;
        await orElse(pacing.pause(Math.min(askedMs, RETRY_AFTER_CAP_MS)), undefined);
        if (askedMs > RETRY_AFTER_CAP_MS) {
          log({
            outcome: "provider_pause",
            upstreamStatus: result.status,
            askedMs,
            pausedMs: RETRY_AFTER_CAP_MS,
          });
          if (await orElse(provider.asked(askedMs), false)) {
            notify({ kind: "provider_pause", status: result.status, askedMs, at: new Date().toISOString() });
          }
        }
      }
      const hint =
        result.failure === "rejected" && result.status !== 429
          ? (accountRefusal(result.status, result.text) ??
            (await orElse(provider.refusedOne(result.status, result.text, messageId(params)), null)))
          : null;
      if (hint && (await orElse(provider.refusing(result.status, result.text, hint), false))) {
        log({ outcome: "provider_refusing", upstreamStatus: result.status, hint });
        notify({
          kind: "provider_refusing",
          status: result.status,
          providerText: providerWords(result.text),
          hint,
        });
      }
      const refusedForItself = result.status >= 400 && result.status < 500 && result.status !== 429 && !hint;
      // A 429 is the pace, not a failing provider.
      if (!hint && !refusedForItself && result.status !== 429)
        await orElse(provider.failed({ reason: FAILURE[result.failure].reason, at: Date.now() }), undefined);
      return {
        ok: false,
        failure: result.failure,
        status: result.status,
        text: result.text,
        uncertain: result.uncertain,
        counted: spent,
        hint,
        refusedForItself,
        attempts: result.attempts,
      };
    },
  };
}
