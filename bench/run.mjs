#!/usr/bin/env node
// npm run bench: the production build measured on this machine, one table.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { chromium } from "@playwright/test";
import { CHROME_FLAGS, CHROME_PATH, median } from "./lib/common.mjs";
import { measureFirstLoad } from "./lib/first-load.mjs";
import { lighthouseInterleaved } from "./lib/lighthouse.mjs";
import { cpuMs, load } from "./lib/load.mjs";
import { importTs, ROOT } from "./lib/ts.mjs";

const HELP = `usage: npm run bench -- [--runs N] [--duration S] [--connections C]
                        [--skip weight,lighthouse,load,contact] [--quick] [--build]
                        [--wait-idle LOAD[:MAXSEC]]

Builds when the build is missing or older than the sources (--build: always),
starts the production server (build/server.js, as npm start) with the EmailJS
fake as its provider, and a minimal static server with the same HTML, and
the floor: that HTML with every script and module preload stripped, with its
stylesheet, all on 127.0.0.1. Then measures, one after the other:
  weight      first load of / in Chromium, cold cache: requests, wire and
              decoded bytes by type, JS on and off; and the gzip-only load
              the byte-budget test asserts
  lighthouse  mobile: the app's / and the floor, interleaved, median of --runs
              (default 5) each, with the longest main-thread task after
              FCP and the sum of the parts over 50 ms; desktop: the app's
              /, median of --runs
  load        autocannon, --connections (50) for --duration s (10) after 2 s
              of warm-up: / (without and with a theme cookie), /robots.txt
              (the cheapest route through the whole stack) and a static
              asset from the app, / from the
              static server, and / through a shared cache (varnishd, built-in
              VCL) in front of the app; browser headers (Accept-Encoding br,
              gzip); and how many of 1,000 cookieless GETs through the cache
              reached the app
  contact     the contact action (a valid no-JS form post, answered 303)
              against the fake, and the fake alone: one request at a time
              for --duration s, latency p50/p99
--quick: 1 Lighthouse run and 3 s loads, to try the bench itself.
--wait-idle 1.5:120: before each part, wait (at most 120 s) until the
1-minute load average is under 1.5, then go on regardless.
Prints one Markdown table; saves everything as bench/results/<UTC time>.json.
KB = 1000 bytes.`;

const BROWSER_HEADERS = {
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "accept-language": "en-GB,en;q=0.9",
  "accept-encoding": "gzip, deflate, br",
};
const RELAY_ENV = {
  EMAILJS_PUBLIC_KEY: "pk_bench_PUBLIC",
  EMAILJS_SERVICE_ID: "service_bench",
  EMAILJS_TEMPLATE_ID: "template_bench",
  // One client sends every request of the bench.
  CONTACT_RATE_LIMIT_MAX: "1000000",
};
const MESSAGE = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  subject: "Bench",
  message: "Hello from the bench.",
};

function parseArgs(argv) {
  const o = { runs: 5, duration: 10, connections: 50, skip: new Set(), build: false, idle: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => argv[++i] ?? fail(`${a} needs a value`);
    if (a === "--help" || a === "-h") {
      console.log(HELP);
      process.exit(0);
    } else if (a === "--runs") o.runs = Number(value());
    else if (a === "--duration") o.duration = Number(value());
    else if (a === "--connections") o.connections = Number(value());
    else if (a === "--skip") for (const s of value().split(",")) o.skip.add(s.trim());
    else if (a === "--quick") Object.assign(o, { runs: 1, duration: 3 });
    else if (a === "--build") o.build = true;
    else if (a === "--wait-idle") {
      const [load, max = "300"] = value().split(":");
      o.idle = { load: Number(load), maxSeconds: Number(max) };
    } else fail(`unknown argument ${a}`);
  }
  if (!(o.runs >= 1 && o.duration > 0 && o.connections >= 1))
    fail("--runs, --duration and --connections must be positive");
  return o;
}

function fail(message) {
  console.error(`${message}\n\n${HELP}`);
  process.exit(2);
}

/** The page with no JavaScript: no script (JSON-LD data stays), no module preload, no empty <noscript>. */
function withoutScripts(html) {
  return html
    .replace(/<script\b(?![^>]*application\/ld\+json)[^>]*>[\s\S]*?<\/script>/g, "")
    .replace(/<link rel="modulepreload"[^>]*>/g, "")
    .replace(/<noscript><\/noscript>/g, "");
}

const log = (message) => process.stderr.write(`[bench] ${message}\n`);

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      newest = Math.max(newest, statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

function ensureBuild(force) {
  const server = path.join(ROOT, "build/server.js");
  const built = statSync(server, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sources = Math.max(
    newestMtime(path.join(ROOT, "app")),
    newestMtime(path.join(ROOT, "server")),
    newestMtime(path.join(ROOT, "public")),
    ...["vite.config.ts", "remix.config.js", "tailwind.config.ts", "package-lock.json"].map(
      (f) => statSync(path.join(ROOT, f), { throwIfNoEntry: false })?.mtimeMs ?? 0,
    ),
  );
  if (!force && built > sources) return false;
  log("building (npm run build)");
  const result = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", 2, 2] });
  if (result.status !== 0) throw new Error("npm run build failed");
  return true;
}

/** Starts `node script args`, resolves with the child and the first stdout line matching `pattern`. */
function startChild(script, args, pattern) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, script), ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = pattern.exec(out);
      if (match) resolve({ child, match });
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}: ${out}`)));
  });
}

/** Waits until the 1-minute load average is under `load`, `maxSeconds` at most. */
async function waitIdle(idle) {
  if (!idle) return;
  const until = Date.now() + idle.maxSeconds * 1000;
  while (os.loadavg()[0] >= idle.load && Date.now() < until) await new Promise((r) => setTimeout(r, 5000));
  if (os.loadavg()[0] >= idle.load) log(`load average still ${os.loadavg()[0].toFixed(2)}, going on`);
}

/**
 * Sequential requests of several kinds, `seconds` of each, taken in turns
 * (`rounds` rounds of `seconds / rounds` each) so a
 * busy moment on the machine falls on all of them alike: latency
 * percentiles in ms with sub-ms precision. Each kind is `{ send, pid }`;
 * given the server's `pid`, adds its CPU time per request, the median over
 * the rounds: the server time a request costs, apart from the client
 * sharing the machine.
 */
async function interleavedCost(seconds, kindsByName, rounds = 10) {
  const kinds = Object.entries(kindsByName);
  for (const [, { send }] of kinds) {
    const warmUntil = performance.now() + 1000;
    while (performance.now() < warmUntil) await send();
  }
  const samples = Object.fromEntries(kinds.map(([name]) => [name, { times: [], cpu: [], statuses: {} }]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, { send, pid }] of kinds) {
      const sample = samples[name];
      const cpuBefore = pid ? cpuMs(pid) : null;
      const until = performance.now() + (seconds * 1000) / rounds;
      let count = 0;
      while (performance.now() < until) {
        const start = performance.now();
        const status = await send();
        sample.times.push(performance.now() - start);
        sample.statuses[status] = (sample.statuses[status] ?? 0) + 1;
        count++;
      }
      const cpuAfter = pid ? cpuMs(pid) : null;
      if (cpuBefore !== null && cpuAfter !== null) sample.cpu.push((cpuAfter - cpuBefore) / count);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, { times, cpu, statuses }]) => {
      times.sort((a, b) => a - b);
      return [
        name,
        {
          requests: times.length,
          p50Ms: median(times),
          p99Ms: times[Math.min(times.length - 1, Math.floor(0.99 * times.length))],
          statusCodes: statuses,
          serverCpuMsPerRequest: cpu.length ? median(cpu) : null,
        },
      ];
    }),
  );
}

/** One kind of request alone, sequentially for `seconds`. */
async function sequentialLatency(seconds, send) {
  return (await interleavedCost(seconds, { only: { send } }, 1)).only;
}

const kb = (bytes) => (bytes == null ? "-" : `${(bytes / 1000).toFixed(1)} KB`);
const ms = (v) => (v == null ? "-" : `${Math.round(v)} ms`);
const mark = (ok) => (ok == null ? "" : ok ? "yes" : "**no**");

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const started = new Date();
  const results = {
    date: started.toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memoryGB: Math.round(os.totalmem() / 1e9),
      node: process.version,
      platform: `${os.type()} ${os.release()}`,
      chromium: CHROME_PATH,
    },
    options: {
      runs: o.runs,
      duration: o.duration,
      connections: o.connections,
      skip: [...o.skip],
      waitIdle: o.idle,
    },
    loadavgAtStart: os.loadavg(),
  };
  results.built = ensureBuild(o.build);

  const cleanups = [];
  const { modules, close } = await importTs("tests/support/app-server.ts", "tests/support/varnish.ts");
  await close();
  try {
    const fake = await startChild("bench/fake-provider.mjs", [], /"url":"([^"]+)"/);
    cleanups.push(() => fake.child.kill("SIGTERM"));
    const fakeUrl = fake.match[1];
    const outbox = mkdtempSync(path.join(os.tmpdir(), "bench-outbox-"));
    cleanups.push(() => rmSync(outbox, { recursive: true, force: true }));
    const app = await modules[0].startAppServer({
      env: { ...RELAY_ENV, EMAILJS_API_URL: fakeUrl, OUTBOX_DIR: outbox },
    });
    cleanups.push(() => app.stop());
    log(`app ${app.url}, fake provider ${fakeUrl}`);

    // The static server gets the very HTML the app renders.
    const html = await (await fetch(`${app.url}/`, { headers: BROWSER_HEADERS })).text();
    const staticDir = mkdtempSync(path.join(os.tmpdir(), "bench-static-"));
    cleanups.push(() => rmSync(staticDir, { recursive: true, force: true }));
    writeFileSync(path.join(staticDir, "index.html"), html);
    // The floor: what the first paint would cost with no JavaScript at all.
    writeFileSync(path.join(staticDir, "floor.html"), withoutScripts(html));
    cpSync(path.join(ROOT, "build/client/assets"), path.join(staticDir, "assets"), { recursive: true });
    cpSync(path.join(ROOT, "public"), staticDir, { recursive: true });
    const stat = await startChild("bench/serve-static.mjs", [staticDir], /listening (\S+)/);
    cleanups.push(() => stat.child.kill("SIGTERM"));
    const staticUrl = stat.match[1];
    const asset = /<link rel="stylesheet" href="([^"]+)"/.exec(html)?.[1];
    if (!asset) throw new Error("no stylesheet link in the page");

    if (!o.skip.has("weight")) {
      await waitIdle(o.idle);
      log("first load in Chromium (JS on, JS off, gzip only)");
      const browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROME_FLAGS });
      try {
        const slim = ({ requests, ...rest }) => ({
          ...rest,
          requests: requests.map(({ url, ...r }) => ({ path: url.replace(app.url, ""), ...r })),
        });
        results.firstLoad = {
          jsOn: slim(await measureFirstLoad(browser, `${app.url}/`)),
          jsOff: slim(await measureFirstLoad(browser, `${app.url}/`, { javaScriptEnabled: false })),
          gzip: slim(await measureFirstLoad(browser, `${app.url}/`, { acceptEncoding: "gzip" })),
        };
      } finally {
        await browser.close();
      }
    }

    if (!o.skip.has("lighthouse")) {
      await waitIdle(o.idle);
      log(`Lighthouse mobile, the app and the floor interleaved, ${o.runs} run(s) each`);
      const mobile = await lighthouseInterleaved(
        { app: `${app.url}/`, floor: `${staticUrl}/floor.html` },
        "mobile",
        o.runs,
      );
      log(`Lighthouse desktop, ${o.runs} run(s)`);
      const desktop = await lighthouseInterleaved({ app: `${app.url}/` }, "desktop", o.runs);
      results.lighthouse = { mobile: mobile.app, floor: mobile.floor, desktop: desktop.app };
    }

    if (!o.skip.has("load")) {
      await waitIdle(o.idle);
      const common = { connections: o.connections, duration: o.duration, headers: BROWSER_HEADERS };
      const varnish = await modules[1].startVarnish([app.port]);
      cleanups.push(() => varnish.stop());
      const pageViews = () => app.output().match(/^GET \/ /gm)?.length ?? 0;
      const before = pageViews();
      for (let i = 0; i < 1000; i++)
        await (await fetch(`${varnish.url}/`, { headers: BROWSER_HEADERS })).arrayBuffer();
      results.sharedCacheAppRequestsPer1000 = pageViews() - before;
      // A visitor who chose a theme: the page is private, so it goes through Remix to the kept page.
      const chosen = await fetch(`${app.url}/action/set-theme`, {
        method: "POST",
        body: new URLSearchParams({ theme: "light" }),
      });
      const themeCookie = chosen.headers.get("set-cookie").split(";")[0];
      results.load = {};
      for (const [name, url, pid, extra] of [
        ["page", `${app.url}/`, app.child.pid],
        ["themedPage", `${app.url}/`, app.child.pid, { cookie: themeCookie }],
        ["robots", `${app.url}/robots.txt`, app.child.pid],
        ["asset", `${app.url}${asset}`, app.child.pid],
        ["staticPage", `${staticUrl}/`, stat.child.pid],
        ["sharedCache", `${varnish.url}/`, app.child.pid],
      ]) {
        log(`autocannon ${url} -c ${o.connections} -d ${o.duration}${extra ? " (with a theme cookie)" : ""}`);
        results.load[name] = await load({ url, pid, ...common, headers: { ...common.headers, ...extra } });
      }
      results.load.assetPath = asset;
    }

    if (!o.skip.has("contact")) {
      await waitIdle(o.idle);
      const payload = JSON.stringify({
        lib_version: "4.4.1",
        user_id: RELAY_ENV.EMAILJS_PUBLIC_KEY,
        service_id: RELAY_ENV.EMAILJS_SERVICE_ID,
        template_id: RELAY_ENV.EMAILJS_TEMPLATE_ID,
        template_params: { ...MESSAGE, from_email: MESSAGE.email, to_name: "Owner" },
      });
      const seconds = Math.min(o.duration, 5);
      log(`contact latency, ${seconds} s each`);
      const fakeAlone = await sequentialLatency(seconds, async () => {
        const res = await fetch(`${fakeUrl}/api/v1.0/email/send`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: payload,
        });
        await res.arrayBuffer();
        return res.status;
      });
      /** A urlencoded post of `values` to `path` (of `base`), as the form sends it; resolves with the status. */
      const post = (path, values, base = app.url) => {
        const body = new URLSearchParams({ ...values, website: "" }).toString();
        return async () => {
          const res = await fetch(`${base}${path}`, {
            method: "POST",
            redirect: "manual",
            headers: { ...BROWSER_HEADERS, "content-type": "application/x-www-form-urlencoded" },
            body,
          });
          await res.arrayBuffer();
          return res.status;
        };
      };
      const viaAction = await sequentialLatency(seconds, post("/?index", MESSAGE));
      // The floor any request through the server pays: a resource route with no work.
      const healthz = await sequentialLatency(seconds, async () => {
        const res = await fetch(`${app.url}/healthz`, { headers: BROWSER_HEADERS });
        await res.arrayBuffer();
        return res.status;
      });
      // What a refusal costs next to a page view and a sent message: a
      // refused post (an invalid address) and a throttled one (429, from a
      // second server whose limit is used up) are answered with the page and
      // the typed text, or with data when JavaScript posts them.
      const refused = { ...MESSAGE, email: "not-an-address" };
      const throttling = await modules[0].startAppServer({
        env: { OUTBOX_DIR: outbox, CONTACT_RATE_LIMIT_MAX: "1" },
      });
      cleanups.push(() => throttling.stop());
      await post("/?index", MESSAGE, throttling.url)();
      const pid = app.child.pid;
      const costs = await interleavedCost(3 * seconds, {
        pageView: {
          pid,
          send: async () => {
            const res = await fetch(`${app.url}/`, {
              headers: { ...BROWSER_HEADERS, "accept-encoding": "gzip" },
            });
            await res.arrayBuffer();
            return res.status;
          },
        },
        accepted: { pid, send: post("/?index", MESSAGE) },
        refusedPage: { pid, send: post("/?index", refused) },
        refusedData: { pid, send: post("/_root.data?index", refused) },
        throttledPage: { pid: throttling.child.pid, send: post("/?index", MESSAGE, throttling.url) },
      });
      results.contact = {
        fakeAlone,
        viaAction,
        healthz,
        addedP50Ms: viaAction.p50Ms - fakeAlone.p50Ms,
        ...costs,
      };
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
  results.loadavgAtEnd = os.loadavg();

  const table = render(results);
  console.log(table);
  const dir = path.join(ROOT, "bench/results");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${started.toISOString().slice(0, 16).replace(":", "")}Z.json`);
  writeFileSync(file, `${JSON.stringify({ ...results, table }, null, 2)}\n`);
  log(`saved ${path.relative(ROOT, file)}`);
}

/** One Markdown table: section, figure, value, target, met. */
function render(r) {
  const rows = [];
  const row = (section, figure, value, target = "", ok = null) =>
    rows.push([section, figure, value, target, mark(ok)]);
  const m = r.machine;
  const header = `npm run bench, ${r.date.slice(0, 16).replace("T", " ")} UTC: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}, load avg ${r.loadavgAtStart[0].toFixed(2)} at start, ${r.loadavgAtEnd[0].toFixed(2)} at end`;

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
      "≤ 110 KB",
      g.script.wireBytes <= 110_000,
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
  for (const [page, l] of Object.entries(lh ?? {})) {
    if (l.warnings.length) row(`Lighthouse ${page}`, "warnings", l.warnings.join("; "));
  }
  if (lh?.mobile) {
    const { mobile: l, floor } = lh;
    const x = l.median;
    const section = `Lighthouse mobile (median of ${l.runs})`;
    row(
      section,
      "app: perf / a11y / BP / SEO, every run",
      scoresPerRun(l),
      "100 ×4, every run",
      every(l, hundreds),
    );
    row(section, "app: FCP, LCP, TBT, CLS", timings(x));
    const tasks = (y) =>
      `longest ${ms(y.longestTaskAfterFcpMs)}, parts over 50 ms ${ms(y.overFiftyAfterFcpMs)}`;
    row(section, "app: main-thread tasks after FCP", tasks(x));
    if (floor?.runs) row(section, "floor: main-thread tasks after FCP", tasks(floor.median));
    row(section, "app: LCP", ms(x.lcpMs), "≤ 1000 ms", x.lcpMs <= 1000);
    row(section, "app: TBT", ms(x.tbtMs), "≤ 50 ms", x.tbtMs <= 50);
    row(section, "app: CLS", x.cls?.toFixed(3), "0", x.cls === 0);
    if (floor?.runs) {
      const f = floor.median;
      row(section, "floor (same HTML, scripts stripped, static server): FCP, LCP, TBT, CLS", timings(f));
      row(section, "floor: perf, every run", floor.perRun.map((run) => run.performance).join(", "));
      const ratio = x.lcpMs / f.lcpMs;
      row(section, "app LCP ÷ floor LCP", ratio.toFixed(2), "≤ 1.10", ratio <= 1.1);
      row(section, "app FCP ÷ floor FCP", (x.fcpMs / f.fcpMs).toFixed(2));
    }
    if (failingAudits(l)) row(section, "app: audits below 100 in some run", failingAudits(l));
  }
  if (lh?.desktop) {
    const l = lh.desktop;
    const section = `Lighthouse desktop (median of ${l.runs})`;
    row(
      section,
      "perf / a11y / BP / SEO, every run",
      scoresPerRun(l),
      "100 ×4, every run",
      every(l, hundreds),
    );
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
      row(section, "/ ÷ /robots.txt (req/s)", robotsRatio.toFixed(2), "≥ 0.90", robotsRatio >= 0.9);
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
      `p50 ${x.p50Ms.toFixed(2)} ms, p99 ${x.p99Ms.toFixed(2)} ms (${x.requests} req, ${Object.entries(
        x.statusCodes,
      )
        .map(([s, n]) => `${n}×${s}`)
        .join(" ")})`;
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

  const lines = [
    ["section", "figure", "value", "target", "met"],
    ["---", "---", "---", "---", "---"],
    ...rows,
  ];
  return `${header}\n\n${lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n")}`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
