// The bench's results as one Markdown table: section, figure, value, target, met.
import { ownerRows } from "./owner-sign-in.mjs";

const kb = (bytes) => (bytes == null ? "-" : `${(bytes / 1000).toFixed(1)} KB`);
const ms = (v) => (v == null ? "-" : `${Math.round(v)} ms`);
/** The answers' statuses, counted: "16×303 4×502". */
const codes = (x) =>
  Object.entries(x.statusCodes)
    .map(([status, n]) => `${n}×${status}`)
    .join(" ");
const mark = (ok) => (ok == null ? "" : ok ? "yes" : "**no**");

/** One Markdown table: section, figure, value, target, met. */
export function render(r) {
  const rows = [];
  const row = (section, figure, value, target = "", ok = null) =>
    rows.push([section, figure, value, target, mark(ok)]);
  const m = r.machine;
  const at = r.commit ? ` at ${r.commit.slice(0, 7)}` : "";
  const header = `npm run bench${at}, ${r.date.slice(0, 16).replace("T", " ")} UTC: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}, load avg ${r.loadavgAtStart[0].toFixed(2)} at start, ${r.loadavgAtEnd[0].toFixed(2)} at end`;

  if (r.firstLoad) {
    const { jsOn, jsOff, gzip } = r.firstLoad;
    const enc = [
      ...new Set(jsOn.requests.filter((q) => q.wireBytes > 1500).map((q) => q.encoding ?? "none")),
    ].join("/");
    for (const type of ["document", "stylesheet", "script", "other"]) {
      const b = jsOn.byType[type];
      row(
        "first load, JS on",
        `${type}: requests, wire (${enc}) / decoded`,
        `${b.requests}, ${kb(b.wireBytes)} / ${kb(b.decodedBytes)}`,
      );
    }
    row(
      "first load, JS on",
      "total: requests, wire / decoded",
      `${jsOn.total.requests}, ${kb(jsOn.total.wireBytes)} / ${kb(jsOn.total.decodedBytes)}`,
    );
    // With JavaScript off, Chromium still sees the module preloads but refuses to fetch them.
    const refused = jsOff.requests.filter((q) => q.failure).length;
    row(
      "first load, JS off",
      "total: requests, wire / decoded",
      `${jsOff.total.requests - refused} (+${refused} scripts not fetched), ${kb(jsOff.total.wireBytes)} / ${kb(jsOff.total.decodedBytes)}`,
    );
    row(
      "first load, JS off",
      "page text without JS / with JS",
      `${jsOff.textLength} / ${jsOn.textLength} chars`,
      "same content",
      jsOff.textLength >= jsOn.textLength * 0.9,
    );
    const g = gzip.byType;
    row(
      "first load, gzip",
      "JS (all scripts and module preloads)",
      kb(g.script.wireBytes),
      "≤ 125 KB",
      g.script.wireBytes <= 125_000,
    );
    row("first load, gzip", "CSS", kb(g.stylesheet.wireBytes), "≤ 12 KB", g.stylesheet.wireBytes <= 12_000);
    row("first load, gzip", "HTML", kb(g.document.wireBytes), "≤ 12 KB", g.document.wireBytes <= 12_000);
    const foreign = jsOn.requests.filter((q) => /^https?:/.test(q.path)).length;
    row(
      "first load, gzip",
      "fonts, images, other hosts",
      `${g.font.requests}, ${g.image.requests}, ${foreign}`,
      "0, 0, 0",
      g.font.requests + g.image.requests + foreign === 0,
    );
  }

  const lh = r.lighthouse;
  const every = (l, ok) => l.perRun.length > 0 && l.perRun.every(ok);
  const hundreds = (x) => [x.performance, x.accessibility, x.bestPractices, x.seo].every((s) => s === 100);
  const scoresPerRun = (l) =>
    l.perRun.map((x) => [x.performance, x.accessibility, x.bestPractices, x.seo].join("/")).join(", ");
  const timings = (x) =>
    `FCP ${ms(x.fcpMs)}, LCP ${ms(x.lcpMs)}, TBT ${ms(x.tbtMs)}, CLS ${x.cls?.toFixed(3)}`;
  const failingAudits = (l) => [...new Set(l.perRun.flatMap((run) => run.failingAudits))].join(", ");
  const scoresRow = (section, label, l) =>
    row(section, label, scoresPerRun(l), "100 ×4, every run", every(l, hundreds));
  for (const [page, l] of Object.entries(lh ?? {})) {
    if (l.warnings.length) row(`Lighthouse ${page}`, "warnings", l.warnings.join("; "));
  }
  /** The app's mobile runs against the floor's, and the traced main thread; `when` names the conditions. */
  const mobileRows = (when, { mobile: l, floor }, mainThread) => {
    const x = l.median;
    const section = `Lighthouse mobile${when} (median of ${l.runs})`;
    scoresRow(section, "app: perf / a11y / BP / SEO, every run", l);
    row(
      section,
      "app: perf, every run",
      l.perRun.map((run) => run.performance).join(", "),
      "≥ 98, every run",
      every(l, (run) => run.performance >= 98),
    );
    row(section, "app: FCP, LCP, TBT, CLS", timings(x));
    const tasks = (y) =>
      `longest ${ms(y.longestTaskAfterFcpMs)}, parts over 50 ms ${ms(y.overFiftyAfterFcpMs)}`;
    row(section, "app: main-thread tasks after FCP", tasks(x));
    if (floor?.runs) row(section, "floor: main-thread tasks after FCP", tasks(floor.median));
    row(section, "app: LCP", ms(x.lcpMs), "≤ 1000 ms", x.lcpMs <= 1000);
    row(section, "app: CLS", x.cls?.toFixed(3), "0", x.cls === 0);
    if (floor?.runs) {
      const f = floor.median;
      row(section, "floor (same HTML, scripts stripped, static server): FCP, LCP, TBT, CLS", timings(f));
      row(section, "floor: perf, every run", floor.perRun.map((run) => run.performance).join(", "));
      // Run i of the app against run i of the floor: they were measured one after the other.
      const extra = l.perRun.map((run, i) => run.tbtMs - (floor.perRun[i]?.tbtMs ?? NaN));
      row(
        section,
        "app TBT − floor TBT, every run",
        extra.map(ms).join(", "),
        "≤ 50 ms, every run",
        extra.every((d) => d <= 50),
      );
      const ratio = x.lcpMs / f.lcpMs;
      row(section, "app LCP ÷ floor LCP", ratio.toFixed(2), "≤ 1.10", ratio <= 1.1);
      row(section, "app FCP ÷ floor FCP", (x.fcpMs / f.fcpMs).toFixed(2));
    }
    if (failingAudits(l)) row(section, "app: audits below 100 in some run", failingAudits(l));
    if (!mainThread?.app?.runs) return;
    const { app, floor: floorTrace } = mainThread;
    const traced = `main thread${when}, ${app.cpuSlowdown}× CPU, traced (${app.runs} runs)`;
    const perRun = (t) => t.perRun.map((run) => run.longestTaskMs).join(", ");
    /** Each run's longest task by its parts (ms), the largest first; parts under 1 ms are left out. */
    const parts = (t) =>
      t.perRun
        .map((run) =>
          Object.entries(run.longestTaskParts ?? {})
            .filter(([, v]) => v >= 1)
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k} ${Math.round(v)}`)
            .join(" + "),
        )
        .join("; ");
    const overFloor = floorTrace?.runs
      ? app.perRun.map((run, i) => run.longestTaskMs - (floorTrace.perRun[i]?.longestTaskMs ?? NaN))
      : [];
    row(
      traced,
      "app: longest task after FCP, every run (ms)",
      perRun(app),
      "≤ the floor's + 50 ms, every run",
      overFloor.length > 0 && overFloor.every((d) => d <= 50),
    );
    row(
      traced,
      "app: the longest task's parts, every run (ms; script: React's hydration, commit, effects)",
      parts(app),
    );
    row(traced, "app: time over 50 ms after FCP (median)", ms(app.median.overFiftyMs));
    if (floorTrace?.runs) {
      row(traced, "floor: longest task after FCP, every run (ms)", perRun(floorTrace));
      row(traced, "floor: the longest task's parts, every run (ms)", parts(floorTrace));
      row(traced, "floor: time over 50 ms after FCP (median)", ms(floorTrace.median.overFiftyMs));
    }
  };
  if (lh?.mobile) mobileRows("", lh, r.mainThread);
  if (r.busy) mobileRows(`, ${r.busy.loops} busy loops`, r.busy.lighthouse, r.busy.mainThread);
  if (lh?.desktop) {
    const l = lh.desktop;
    const section = `Lighthouse desktop (median of ${l.runs})`;
    scoresRow(section, "perf / a11y / BP / SEO, every run", l);
    row(section, "FCP, LCP, TBT, CLS", timings(l.median));
    if (failingAudits(l)) row(section, "audits below 100 in some run", failingAudits(l));
  }

  if (r.load) {
    const L = r.load;
    const c = L.page.connections;
    const cpu = (x) =>
      x.serverCpuMsPerRequest == null ? "" : `, server CPU ${x.serverCpuMsPerRequest.toFixed(2)} ms/req`;
    const line = (x) =>
      `${Math.round(x.reqPerSec)} req/s, p50 ${x.latencyMs.p50} ms, p99 ${x.latencyMs.p99} ms, ${x.errors} errors${cpu(x)}`;
    const section = `server, ${c} connections, ${L.page.duration} s`;
    row(
      section,
      "app: / (SSR)",
      line(L.page),
      "p99 ≤ 100 ms",
      L.page.latencyMs.p99 <= 100 && L.page.errors === 0,
    );
    row(section, `app: ${L.assetPath}`, line(L.asset));
    row(section, "static server: same HTML", line(L.staticPage));
    if (L.robots) {
      row(section, "app: /robots.txt (cheapest route through the stack)", line(L.robots));
      if (L.themedPage)
        row(section, "app: / with a theme cookie (private: through Remix)", line(L.themedPage));
      const robotsRatio = L.page.reqPerSec / L.robots.reqPerSec;
      row(section, "/ ÷ /robots.txt (req/s)", robotsRatio.toFixed(2), "≥ 0.50", robotsRatio >= 0.5);
      row(
        section,
        "/ p99 against /robots.txt p99",
        `${L.page.latencyMs.p99} ms against ${L.robots.latencyMs.p99} ms`,
        "no worse",
        L.page.latencyMs.p99 <= L.robots.latencyMs.p99,
      );
    }
    if (L.sharedCache) {
      row(section, "shared cache (varnishd) in front: /", line(L.sharedCache));
      const cacheRatio = L.sharedCache.reqPerSec / L.page.reqPerSec;
      row(
        section,
        "/ through the cache ÷ / from the app (req/s)",
        cacheRatio.toFixed(2),
        "≥ 3",
        cacheRatio >= 3,
      );
      if (L.themedPage) {
        const themedRatio = L.sharedCache.reqPerSec / L.themedPage.reqPerSec;
        row(section, "/ through the cache ÷ / with a theme cookie (req/s)", themedRatio.toFixed(2));
      }
      row(
        section,
        "app requests for 1,000 cookieless GETs through the cache",
        String(r.sharedCacheAppRequestsPer1000),
        "≤ 1 per s-maxage (300 s)",
        r.sharedCacheAppRequestsPer1000 <= 1,
      );
    }
    const ratio = L.page.reqPerSec / L.asset.reqPerSec;
    row(section, "/ ÷ static asset (req/s)", ratio.toFixed(2), "≥ 0.60", ratio >= 0.6);
    row(section, "/ ÷ static server (req/s)", (L.page.reqPerSec / L.staticPage.reqPerSec).toFixed(2));
    if (L.page.serverCpuMsPerRequest && L.asset.serverCpuMsPerRequest) {
      const cpuRatio = L.asset.serverCpuMsPerRequest / L.page.serverCpuMsPerRequest;
      row(
        section,
        "static asset ÷ / (server CPU per request)",
        cpuRatio.toFixed(2),
        "≥ 0.60",
        cpuRatio >= 0.6,
      );
    }
  }

  if (r.contact) {
    const { fakeAlone, viaAction, healthz, addedP50Ms } = r.contact;
    const fmt = (x) =>
      `p50 ${x.p50Ms.toFixed(2)} ms, p99 ${x.p99Ms.toFixed(2)} ms (${x.requests} req, ${codes(x)})`;
    row("contact, one at a time", "fake provider alone", fmt(fakeAlone));
    row("contact, one at a time", "action → fake (no-JS post, 303)", fmt(viaAction));
    row("contact, one at a time", "app: GET /healthz (the app's floor)", fmt(healthz));
    const { pageView, accepted, refusedData, refusedPage, throttledPage } = r.contact;
    if (throttledPage) {
      // Server time: the server's CPU per request, median over interleaved rounds.
      const cpu = (x) => x.serverCpuMsPerRequest;
      const withCpu = (x) => (cpu(x) == null ? fmt(x) : `server CPU ${cpu(x).toFixed(2)} ms/req; ${fmt(x)}`);
      const against = (x) =>
        cpu(x) == null
          ? ""
          : `; ${(cpu(x) / cpu(pageView)).toFixed(2)}× a page view, ${(cpu(x) / cpu(accepted)).toFixed(2)}× a sent post`;
      row("contact, one at a time", "page view: GET / (gzip)", withCpu(pageView));
      row("contact, one at a time", "sent post, no JS (303, relayed)", withCpu(accepted));
      // No goal for refusals: the page with the typed text is rendered each time, and they are rate-limited.
      for (const [figure, x] of [
        ["refused post, with JS (data, 400)", refusedData],
        ["refused post, no JS (page with the typed text, 400)", refusedPage],
        ["throttled post, no JS (page with the typed text, 429)", throttledPage],
      ]) {
        row("contact, one at a time", figure, withCpu(x) + against(x));
      }
    }
    row(
      "contact, one at a time",
      "action's own cost at p50 (action − /healthz)",
      `${(viaAction.p50Ms - healthz.p50Ms).toFixed(2)} ms`,
    );
    row(
      "contact, one at a time",
      "added by the action at p50",
      `${addedP50Ms.toFixed(2)} ms`,
      "≤ 2 ms",
      addedP50Ms <= 2 && Object.keys(viaAction.statusCodes).every((status) => status === "303"),
    );
  }

  if (r.owner) rows.push(...ownerRows(r.owner));

  if (r.path) {
    const value = r.path.map((p) => `${p.engine}: ${p.fileCount} files, ${p.functions} functions`).join("; ");
    row("a sent post's path", "files and functions of the project it runs through", value);
  }

  if (r.pacing) {
    const { maxPerSecond, atOnce } = r.pacing;
    const section = `provider pace, ${maxPerSecond} req/s (EmailJS fake)`;
    const name = (e) =>
      ({
        sqlite: `SQLite: ${e.replicas} process on its own outbox.sqlite, no DATABASE_URL`,
        postgres: `PostgreSQL: ${e.replicas} process${e.replicas === 1 ? "" : "es"} on one database, DATABASE_URL`,
      })[e.engine];
    const s = (v) => `${(v / 1000).toFixed(1)} s`;
    const visitors = (x) =>
      `p50 ${ms(x.p50Ms)}, p99 ${ms(x.p99Ms)} (${codes(x)}), ${x.kept} kept` +
      (x.kept ? ` (${x.keptMailed} mailed within ${s(x.keptMailedWithinMs)} of the post)` : "");
    const target = `${atOnce} at once p99 < 1 s; drain ≈ 0.9 req/s, ≤ ${maxPerSecond} in any 1 s; no 429; second of two in one second mailed within 2 s`;
    for (const e of r.pacing.engines) {
      if (e.error) {
        rows.push([section, name(e), `failed: ${e.error}`, target, "**no**"]);
        continue;
      }
      const d = e.drain;
      const missed = [
        e.together.p99Ms < 1000 ? null : "p99",
        d.delivered === d.posted && d.requestsPerSecond >= 0.8 && d.requestsPerSecond <= maxPerSecond
          ? null
          : "drain",
        d.busiestSecond <= maxPerSecond ? null : "busiest second",
        e.tooManyInAll === 0 ? null : "429",
        e.secondOfTwoMs === undefined || e.secondOfTwoMs <= 2_000 ? null : "second of two",
      ].filter(Boolean);
      const value = [
        `backlog ${d.posted} posts (${codes(d)}), ${d.kept} listed by \`outbox list\``,
        `drain ${d.delivered} mails, ${d.requests} requests in ${d.seconds.toFixed(1)} s: ${d.requestsPerSecond.toFixed(2)} req/s, mean gap ${ms(d.meanGapMs)}, most in 1 s ${d.busiestSecond}, 429s ${d.tooMany} (${e.tooManyInAll} in the whole part)`,
        `${e.alone.posts} posts one at a time, the pacing idle: ${visitors(e.alone)}`,
        `${e.together.posts} posts ${atOnce} at once: ${visitors(e.together)}`,
        ...(e.secondOfTwoMs === undefined
          ? []
          : [`two posts in one second: the second mailed ${ms(e.secondOfTwoMs)} after the posts`]),
        `listed at the end ${d.left} after the drain, ${e.left} after the visitors`,
      ].join("; ");
      rows.push([section, name(e), value, target, missed.length ? `**no**: ${missed.join(", ")}` : "yes"]);
    }
  }

  const lines = [
    ["section", "figure", "value", "target", "met"],
    ["---", "---", "---", "---", "---"],
    ...rows,
  ];
  return `${header}\n\n${lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n")}`;
}
