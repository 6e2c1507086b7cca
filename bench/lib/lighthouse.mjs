// Lighthouse medians for pages and a preset, each run in a fresh headless
// Chromium (adapted from the team's shared perf tools).
import os from "node:os";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { CHROME_FLAGS, CHROME_PATH, interleaved, longTasks, medians } from "./common.mjs";

function extract(lhr) {
  const audit = (id) => lhr.audits[id]?.numericValue ?? null;
  // Main-thread tasks over 50 ms once the page has painted (simulated durations on mobile).
  const afterFcp = longTasks(
    (lhr.audits["long-tasks"]?.details?.items ?? [])
      .filter((task) => task.startTime >= audit("first-contentful-paint"))
      .map((task) => task.duration),
  );
  const score = (id) =>
    lhr.categories[id]?.score == null ? null : Math.round(lhr.categories[id].score * 100);
  return {
    performance: score("performance"),
    accessibility: score("accessibility"),
    bestPractices: score("best-practices"),
    seo: score("seo"),
    fcpMs: audit("first-contentful-paint"),
    lcpMs: audit("largest-contentful-paint"),
    tbtMs: audit("total-blocking-time"),
    cls: audit("cumulative-layout-shift"),
    longestTaskAfterFcpMs: afterFcp.longest,
    overFiftyAfterFcpMs: afterFcp.overFifty,
    speedIndexMs: audit("speed-index"),
    totalBytes: audit("total-byte-weight"),
    benchmarkIndex: lhr.environment?.benchmarkIndex ?? null,
  };
}

/**
 * Lighthouse runs of several pages, interleaved (A, B, A, B...) so that the
 * machine's noise hits each page alike: `runs` runs per page, each in a fresh
 * headless Chromium with the preset's simulated throttling. Per page: the
 * median of every figure, and every run.
 * @param {Record<string, string>} urls name → URL
 */
export async function lighthouseInterleaved(urls, preset, runs) {
  const warnings = Object.fromEntries(Object.keys(urls).map((name) => [name, new Set()]));
  let version = null;
  const perPage = await interleaved(urls, runs, async (url, name) => {
    // A run Lighthouse itself gives up on (NO_NAVSTART and the like, on a
    // busy machine) is tried again, twice at most; its warning is kept.
    for (let attempt = 0; attempt < 3; attempt++) {
      const run = await lighthouseRun(url, preset);
      version = run.version;
      for (const w of run.warnings) warnings[name].add(w);
      if (run.result) return run.result;
    }
    return null;
  });
  return Object.fromEntries(
    Object.entries(perPage).map(([name, perRun]) => [
      name,
      {
        preset,
        lighthouseVersion: version,
        runs: perRun.length,
        median: medians(perRun),
        perRun,
        warnings: [...warnings[name]],
      },
    ]),
  );
}

async function lighthouseRun(url, preset) {
  const loadavg1 = os.loadavg()[0];
  const chrome = await chromeLauncher.launch({
    chromePath: CHROME_PATH,
    chromeFlags: ["--headless=new", ...CHROME_FLAGS],
    logLevel: "silent",
  });
  try {
    const flags = {
      port: chrome.port,
      output: "json",
      logLevel: "error",
      onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
    };
    const { lhr } = await lighthouse(url, flags, preset === "desktop" ? desktopConfig : undefined);
    const warnings = (lhr.runWarnings ?? []).map(String);
    if (lhr.runtimeError) {
      warnings.push(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
      return { version: lhr.lighthouseVersion, warnings, result: null };
    }
    // Audits that cost points, so a score below 100 says why.
    const failingAudits = Object.values(lhr.categories)
      .flatMap((category) => category.auditRefs)
      .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
      .map((ref) => ref.id);
    const consoleErrors = (lhr.audits["errors-in-console"]?.details?.items ?? []).map(
      (item) => `${item.source}: ${item.description}`,
    );
    const result = {
      ...extract(lhr),
      loadavg1: Math.round(loadavg1 * 100) / 100,
      failingAudits: [...new Set(failingAudits)],
      consoleErrors,
    };
    return { version: lhr.lighthouseVersion, warnings, result };
  } finally {
    await chrome.kill();
  }
}
