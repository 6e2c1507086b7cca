// The main thread after the first paint, traced in Chromium with the CPU slowed down by DevTools:
// the tasks a visitor's input would wait behind, measured rather than simulated as Lighthouse does.
import { median } from "./common.mjs";

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
    const tasks = traceEvents
      .filter(
        (e) =>
          e.name === "RunTask" && e.ph === "X" && e.pid === fcp.pid && e.tid === fcp.tid && e.ts >= fcp.ts,
      )
      .map((e) => e.dur / 1000);
    return {
      longestTaskMs: Math.round(Math.max(0, ...tasks) * 10) / 10,
      overFiftyMs: Math.round(tasks.reduce((sum, ms) => sum + Math.max(0, ms - 50), 0) * 10) / 10,
    };
  } finally {
    await context.close();
  }
}

/**
 * Several pages, interleaved (A, B, A, B...) so the machine's noise hits each alike, `runs` cold loads
 * each: per page every run's longest task after FCP and the time over 50 ms, and their medians.
 * @param {Record<string, string>} urls name → URL
 */
export async function mainThreadInterleaved(browser, urls, runs) {
  const perPage = Object.fromEntries(Object.keys(urls).map((name) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, url] of Object.entries(urls)) {
      const run = await traceRun(browser, url);
      if (run) perPage[name].push(run);
    }
  }
  return Object.fromEntries(
    Object.entries(perPage).map(([name, perRun]) => [
      name,
      {
        cpuSlowdown: CPU_SLOWDOWN,
        runs: perRun.length,
        median: {
          longestTaskMs: median(perRun.map((r) => r.longestTaskMs)),
          overFiftyMs: median(perRun.map((r) => r.overFiftyMs)),
        },
        perRun,
      },
    ]),
  );
}
