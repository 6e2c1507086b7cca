// Shared by the bench's parts: the browser, medians, long tasks and the interleaving of pages.
import { chromium } from "@playwright/test";
import { systemChromium, systemChromiumFlags } from "../../tests/support/chromium.mjs";

export { systemChromium as CHROME_PATH, systemChromiumFlags as CHROME_FLAGS };

/** Runs `use` with a headless Chromium (Playwright), closed afterwards. */
export async function withChromium(use) {
  const browser = await chromium.launch({ executablePath: systemChromium, args: systemChromiumFlags });
  try {
    return await use(browser);
  } finally {
    await browser.close();
  }
}

export function median(values) {
  const v = values.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** The 99th percentile by nearest rank: the largest of fewer than 100 values. */
export function p99(values) {
  const v = [...values].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.floor(0.99 * v.length))] : null;
}

/** The median of every figure of the runs (lists and objects are left out). */
export function medians(perRun) {
  const figure = (v) => v === null || typeof v !== "object";
  const keys = perRun.length ? Object.keys(perRun[0]).filter((k) => figure(perRun[0][k])) : [];
  return Object.fromEntries(keys.map((k) => [k, median(perRun.map((r) => r[k]))]));
}

/** Of main-thread task durations (ms): the longest, and the time past 50 ms summed. */
export function longTasks(durations) {
  return {
    longest: Math.max(0, ...durations),
    overFifty: durations.reduce((sum, duration) => sum + Math.max(0, duration - 50), 0),
  };
}

/**
 * `measure` over several pages, interleaved (A, B, A, B...) so that the machine's noise hits each page
 * alike, `runs` times each; a run that gives null is left out. Per page, every run's result.
 * @param {Record<string, string>} urls name → URL
 */
export async function interleaved(urls, runs, measure) {
  const perPage = Object.fromEntries(Object.keys(urls).map((name) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, url] of Object.entries(urls)) {
      const result = await measure(url, name);
      if (result) perPage[name].push(result);
    }
  }
  return perPage;
}
