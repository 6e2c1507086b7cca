// The relay's limits as the configuration reads them (decisions 045-048).
import * as z from "zod";
import { intInRange, optional } from "./env-values.server";

export type RelayLimits = {
  budget: { daily: number; monthly: number; monthStartsOn: number; monthSeconds: number | null };
  maxPerSecond: number;
  providerProbeSeconds: number;
  keepDays: number;
  waitingAlertMinutes: number;
  /** Mails a day from one network (an IPv4 /24, an IPv6 /48); the rest wait for its next day. */
  networkDailyLimit: number;
  /** A fixed "day" of this many seconds for the network's share instead (tests). */
  networkDaySeconds: number | null;
};

const seconds = optional.pipe(
  z.optional(z.string().regex(/^\d+$/, "must be a whole number").transform(Number).pipe(z.number().min(1))),
);

export const relayLimitsEnv = {
  CONTACT_DAILY_SEND_LIMIT: intInRange(100, 1, 1_000_000),
  CONTACT_MONTHLY_SEND_LIMIT: intInRange(200, 1, 100_000_000),
  CONTACT_MONTH_STARTS_ON: intInRange(1, 1, 28),
  CONTACT_MONTH_SECONDS: seconds,
  EMAILJS_MAX_PER_SECOND: intInRange(1, 1, 1_000),
  CONTACT_PROVIDER_PROBE_SECONDS: intInRange(600, 1, 86_400),
  CONTACT_KEEP_DAYS: intInRange(30, 1, 3_650),
  CONTACT_WAITING_ALERT_MINUTES: intInRange(60, 1, 10_080),
  CONTACT_NETWORK_DAILY_LIMIT: intInRange(10, 1, 1_000_000),
  CONTACT_NETWORK_DAY_SECONDS: seconds,
};

type RelayEnv = z.output<z.ZodObject<typeof relayLimitsEnv>>;

export function relayLimits(e: RelayEnv): RelayLimits {
  return {
    budget: {
      daily: e.CONTACT_DAILY_SEND_LIMIT,
      monthly: e.CONTACT_MONTHLY_SEND_LIMIT,
      monthStartsOn: e.CONTACT_MONTH_STARTS_ON,
      monthSeconds: e.CONTACT_MONTH_SECONDS ?? null,
    },
    maxPerSecond: e.EMAILJS_MAX_PER_SECOND,
    providerProbeSeconds: e.CONTACT_PROVIDER_PROBE_SECONDS,
    keepDays: e.CONTACT_KEEP_DAYS,
    waitingAlertMinutes: e.CONTACT_WAITING_ALERT_MINUTES,
    networkDailyLimit: e.CONTACT_NETWORK_DAILY_LIMIT,
    networkDaySeconds: e.CONTACT_NETWORK_DAY_SECONDS ?? null,
  };
}
