// The relay's words for the owner: counts, spans of time, a pause EmailJS asked for, the provider's own words.
import { RETRY_AFTER_CAP_MS } from "./rulebook.server";

/** A pause EmailJS asked for past RETRY_AFTER_CAP_MS: when it last asked, and for how long (decision 050). */
export type AskedPause = { at: string; ms: number };

const SPANS: [number, string][] = [
  [365.25 * 86_400_000, "year"],
  [86_400_000, "day"],
  [3_600_000, "hour"],
  [60_000, "minute"],
];

export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A length of time in the largest unit it holds at least twice, e.g. "60 seconds", "24 hours", "73 years". */
export function span(ms: number): string {
  const [unit, name] = SPANS.find(([unit]) => ms >= 2 * unit) ?? [1_000, "second"];
  return count(Math.floor(ms / unit), name);
}

const dateOf = (ms: number) => {
  const date = new Date(Math.round(ms / 1_000) * 1_000);
  return Number.isNaN(date.getTime()) ? "beyond any date" : date.toISOString().replace(".000Z", "Z");
};

export function askedPauseWords({ at, ms }: AskedPause): string {
  const start = Date.parse(at);
  return `EmailJS asked at ${dateOf(start)} to wait ${span(ms)} (until ${dateOf(start + ms)}); sending is held until ${dateOf(start + RETRY_AFTER_CAP_MS)}, ${span(RETRY_AFTER_CAP_MS)} at most, then tried again`;
}

export const ADDRESS_LIKE = /[^\s@]*@[^\s@]*/g;

export function providerWords(text: string): string {
  const line = text
    .replace(ADDRESS_LIKE, "[address]")
    .replace(/[\s\p{Cc}\p{Cf}]+/gu, " ")
    .trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
