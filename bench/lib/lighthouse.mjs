// Lighthouse medians for one URL and preset, each run in a fresh headless
// Chromium (adapted from the team's shared perf tools).
import os from "node:os";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { CHROME_FLAGS, CHROME_PATH, median } from "./common.mjs";

function extract(lhr) {
  const audit = (id) => lhr.audits[id]?.numericValue ?? null;
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
    speedIndexMs: audit("speed-index"),
    totalBytes: audit("total-byte-weight"),
    benchmarkIndex: lhr.environment?.benchmarkIndex ?? null,
  };
}

/** Median of `runs` Lighthouse runs (simulated throttling, Lighthouse's defaults for the preset). */
export async function lighthouseMedian(url, preset, runs) {
  const perRun = [];
  const warnings = new Set();
  let version = null;
  for (let i = 0; i < runs; i++) {
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
      const result = await lighthouse(url, flags, preset === "desktop" ? desktopConfig : undefined);
      const lhr = result.lhr;
      version = lhr.lighthouseVersion;
      for (const w of lhr.runWarnings ?? []) warnings.add(String(w));
      if (lhr.runtimeError) {
        warnings.add(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
        continue;
      }
      // Audits that cost points, so a score below 100 says why.
      const failingAudits = Object.values(lhr.categories)
        .flatMap((category) => category.auditRefs)
        .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
        .map((ref) => ref.id);
      const consoleErrors = (lhr.audits["errors-in-console"]?.details?.items ?? []).map(
        (item) => `${item.source}: ${item.description}`,
      );
      perRun.push({
        ...extract(lhr),
        loadavg1: Math.round(loadavg1 * 100) / 100,
        failingAudits: [...new Set(failingAudits)],
        consoleErrors,
      });
    } finally {
      await chrome.kill();
    }
  }
  const keys = perRun.length ? Object.keys(perRun[0]).filter((k) => !Array.isArray(perRun[0][k])) : [];
  return {
    preset,
    lighthouseVersion: version,
    runs: perRun.length,
    median: Object.fromEntries(keys.map((k) => [k, median(perRun.map((r) => r[k]))])),
    perRun,
    warnings: [...warnings],
  };
}
