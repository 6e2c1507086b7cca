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

/** Trace events, by name, to the part of a task they are: the innermost one that covers a moment names it. */
const PART_OF = {
  EvaluateScript: "evaluation",
  "v8.evaluateModule": "evaluation",
  "v8.compileModule": "evaluation",
  "v8.compile": "evaluation",
  FunctionCall: "script",
  TimerFire: "script",
  FireAnimationFrame: "script",
  EventDispatch: "script",
  RunMicrotasks: "script",
  "v8.callFunction": "script",
  ParseHTML: "parsing",
  ParseAuthorStyleSheet: "parsing",
  UpdateLayoutTree: "rendering",
  Layout: "rendering",
  PrePaint: "rendering",
  Paint: "rendering",
  Layerize: "rendering",
  Commit: "rendering",
  UpdateLayer: "rendering",
  HitTest: "rendering",
  MinorGC: "gc",
  MajorGC: "gc",
};

/**
 * A task's time split into its parts (ms): evaluation (scripts and modules compiled and run at the top
 * level), script (functions called back: React's hydration, commit and effects, the loader's timers),
 * rendering (style, layout, paint), parsing, gc and other (the rest).
 */
function partsOf(task, events) {
  const end = task.ts + task.dur;
  const inside = events
    .filter((e) => e !== task && PART_OF[e.name] && e.ts >= task.ts && e.ts + e.dur <= end)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const parts = { evaluation: 0, script: 0, rendering: 0, parsing: 0, gc: 0, other: task.dur };
  const open = [];
  for (const e of inside) {
    while (open.length && open.at(-1).ts + open.at(-1).dur <= e.ts) open.pop();
    const parent = open.at(-1);
    parts[parent ? PART_OF[parent.name] : "other"] -= e.dur;
    parts[PART_OF[e.name]] += e.dur;
    open.push(e);
  }
  return Object.fromEntries(Object.entries(parts).map(([k, us]) => [k, Math.round(us / 100) / 10]));
}

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
    const main = traceEvents.filter((e) => e.ph === "X" && e.pid === fcp.pid && e.tid === fcp.tid);
    const tasks = main.filter((e) => e.name === "RunTask" && e.ts >= fcp.ts);
    const { longest, overFifty } = longTasks(tasks.map((e) => e.dur / 1000));
    const longestTask = tasks.find((e) => e.dur / 1000 === longest);
    return {
      longestTaskMs: Math.round(longest * 10) / 10,
      overFiftyMs: Math.round(overFifty * 10) / 10,
      longestTaskParts: longestTask ? partsOf(longestTask, main) : null,
    };
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
