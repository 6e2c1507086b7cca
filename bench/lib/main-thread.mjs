// The main thread after the first paint, traced in Chromium with the CPU slowed down by DevTools:
// the tasks a visitor's input would wait behind, measured rather than simulated as Lighthouse does.
import { interleaved, longTasks, medians } from "./common.mjs";

const CPU_SLOWDOWN = 4;
/** After `load` the page fetches, evaluates and hydrates its scripts (decision 013); this covers it at 4×. */
const SETTLE_MS = 3_000;
const PHONE = {
  viewport: { width: 412, height: 823 },
  deviceScaleFactor: 2.625,
  isMobile: true,
  hasTouch: true,
};

/** One cold load: the tasks on the page's main thread that start after its first contentful paint. */
async function traceRun(browser, url) {
  const context = await browser.newContext(PHONE);
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    await browser.startTracing(page, {
      categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "loading"],
    });
    await page.goto(url, { waitUntil: "load" });
    await page.waitForTimeout(SETTLE_MS);
    const { traceEvents } = JSON.parse((await browser.stopTracing()).toString());
    const fcp = traceEvents.find((e) => e.name === "firstContentfulPaint");
    if (!fcp) return null;
    const { longest, overFifty } = longTasks(
      traceEvents
        .filter(
          (e) =>
            e.name === "RunTask" && e.ph === "X" && e.pid === fcp.pid && e.tid === fcp.tid && e.ts >= fcp.ts,
        )
        .map((e) => e.dur / 1000),
    );
    return { longestTaskMs: Math.round(longest * 10) / 10, overFiftyMs: Math.round(overFifty * 10) / 10 };
  } finally {
    await context.close();
  }
}

/**
 * Several pages, interleaved (A, B, A, B...), `runs` cold loads each: per page every run's longest
 * task after FCP and the time over 50 ms, and their medians.
 * @param {Record<string, string>} urls name → URL
 */
export async function mainThreadInterleaved(browser, urls, runs) {
  const perPage = await interleaved(urls, runs, (url) => traceRun(browser, url));
  return Object.fromEntries(
    Object.entries(perPage).map(([name, perRun]) => [
      name,
      { cpuSlowdown: CPU_SLOWDOWN, runs: perRun.length, median: medians(perRun), perRun },
    ]),
  );
}
