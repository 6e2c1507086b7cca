#!/usr/bin/env node
// npm run bench: the production build measured on this machine, one table.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CHROME_PATH, withChromium } from "./lib/common.mjs";
import { measureFirstLoad } from "./lib/first-load.mjs";
import { interleavedCost, sequentialLatency } from "./lib/latency.mjs";
import { lighthouseInterleaved } from "./lib/lighthouse.mjs";
import { load } from "./lib/load.mjs";
import { mainThreadInterleaved } from "./lib/main-thread.mjs";
import { parseArgs } from "./lib/options.mjs";
import { measureOwnerSignIn } from "./lib/owner-sign-in.mjs";
import { measurePacing } from "./lib/pacing.mjs";
import { measurePostPath } from "./lib/post-path.mjs";
import { render } from "./lib/table.mjs";
import { importTs, ROOT } from "./lib/ts.mjs";

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
  // Neither a client's limit nor the site-wide budget, daily and monthly, stops the posts that are sent.
  CONTACT_RATE_LIMIT_MAX: "1000000",
  CONTACT_DAILY_SEND_LIMIT: "1000000",
  CONTACT_MONTHLY_SEND_LIMIT: "100000000",
  // The bench is the proxy: posts come from many networks (past 30 refusals a client gets a small 429, past 10
  // mails a day a network's messages are held for the owner).
  TRUST_PROXY: "loopback",
  // The contact part measures what a send costs, the pacing part the provider's pace (it sets 1 a second).
  EMAILJS_MAX_PER_SECOND: "1000",
  // The same text from many networks is still scored, and still mailed.
  CONTACT_SPAM_THRESHOLD: "100",
};
/** A client in a new network (an IPv4 /24) on each call, as the proxy would forward it. */
const nextClient = (() => {
  let n = 0;
  return () => {
    n++;
    return `10.${(n >> 8) & 255}.${n & 255}.1`;
  };
})();
const MESSAGE = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  subject: "Bench",
  message: "Hello from the bench.",
};

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

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const started = new Date();
  const results = {
    date: started.toISOString(),
    commit: spawnSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim(),
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
      busy: o.busy,
      backlog: o.backlog,
      visitors: o.visitors,
      replicas: o.replicas,
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
      const slim = ({ requests, ...rest }) => ({
        ...rest,
        requests: requests.map(({ url, ...r }) => ({ path: url.replace(app.url, ""), ...r })),
      });
      results.firstLoad = await withChromium(async (browser) => ({
        jsOn: slim(await measureFirstLoad(browser, `${app.url}/`)),
        jsOff: slim(await measureFirstLoad(browser, `${app.url}/`, { javaScriptEnabled: false })),
        gzip: slim(await measureFirstLoad(browser, `${app.url}/`, { acceptEncoding: "gzip" })),
      }));
    }

    if (!o.skip.has("lighthouse")) {
      await waitIdle(o.idle);
      log(`Lighthouse mobile, the app and the floor interleaved, ${o.runs} run(s) each`);
      const appAndFloor = { app: `${app.url}/`, floor: `${staticUrl}/floor.html` };
      const mobile = await lighthouseInterleaved(appAndFloor, "mobile", o.runs);
      log(`Lighthouse desktop, ${o.runs} run(s)`);
      const desktop = await lighthouseInterleaved({ app: `${app.url}/` }, "desktop", o.runs);
      results.lighthouse = { mobile: mobile.app, floor: mobile.floor, desktop: desktop.app };
      log(`main thread at 4× CPU, traced, the app and the floor interleaved, ${o.runs} run(s) each`);
      results.mainThread = await withChromium((browser) =>
        mainThreadInterleaved(browser, appAndFloor, o.runs),
      );
      if (o.busy > 0) {
        log(`the same, mobile and traced, under ${o.busy} busy loop(s)`);
        const loops = Array.from({ length: o.busy }, () =>
          spawn(process.execPath, ["-e", "for (;;);"], { stdio: "ignore" }),
        );
        try {
          const busyMobile = await lighthouseInterleaved(appAndFloor, "mobile", o.runs);
          results.busy = {
            loops: o.busy,
            lighthouse: { mobile: busyMobile.app, floor: busyMobile.floor },
            mainThread: await withChromium((browser) => mainThreadInterleaved(browser, appAndFloor, o.runs)),
          };
        } finally {
          for (const loop of loops) loop.kill("SIGKILL");
        }
      }
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
      /**
       * A urlencoded post of `values` to `path` (of `base`), as the form sends it, from the client
       * `from()` names (the bench's own address without it); resolves with the status.
       */
      const post = (path, values, base = app.url, from = null) => {
        const body = new URLSearchParams({ ...values, website: "" }).toString();
        return async () => {
          const res = await fetch(`${base}${path}`, {
            method: "POST",
            redirect: "manual",
            headers: {
              ...BROWSER_HEADERS,
              "content-type": "application/x-www-form-urlencoded",
              ...(from ? { "x-forwarded-for": from() } : {}),
            },
            body,
          });
          await res.arrayBuffer();
          return res.status;
        };
      };
      const viaAction = await sequentialLatency(seconds, post("/?index", MESSAGE, app.url, nextClient));
      // The floor any request through the server pays: a resource route with no work.
      const healthz = await sequentialLatency(seconds, async () => {
        const res = await fetch(`${app.url}/healthz`, { headers: BROWSER_HEADERS });
        await res.arrayBuffer();
        return res.status;
      });
      // What a refusal costs next to a page view and a sent message: a
      // refused post (an invalid address) and a throttled one (429, from a
      // second server where each of 600 clients has used up its limit) are
      // answered with the page and the typed text, or with data when
      // JavaScript posts them; each client is refused fewer than 30 times.
      const refused = { ...MESSAGE, email: "not-an-address" };
      const throttling = await modules[0].startAppServer({
        env: { OUTBOX_DIR: outbox, CONTACT_RATE_LIMIT_MAX: "1", TRUST_PROXY: "loopback" },
      });
      cleanups.push(() => throttling.stop());
      const limited = Array.from({ length: 600 }, nextClient);
      for (const client of limited) await post("/?index", MESSAGE, throttling.url, () => client)();
      let turn = 0;
      const limitedClient = () => limited[turn++ % limited.length];
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
        accepted: { pid, send: post("/?index", MESSAGE, app.url, nextClient) },
        refusedPage: { pid, send: post("/?index", refused, app.url, nextClient) },
        refusedData: { pid, send: post("/_root.data?index", refused, app.url, nextClient) },
        throttledPage: {
          pid: throttling.child.pid,
          send: post("/?index", MESSAGE, throttling.url, limitedClient),
        },
      });
      results.contact = {
        fakeAlone,
        viaAction,
        healthz,
        addedP50Ms: viaAction.p50Ms - fakeAlone.p50Ms,
        ...costs,
      };
    }

    if (!o.skip.has("owner")) {
      await waitIdle(o.idle);
      const seconds = Math.min(o.duration, 5);
      results.owner = await measureOwnerSignIn({ seconds, connections: o.connections, log });
    }

    if (!o.skip.has("path")) {
      log("a sent post's path, on the SQLite file and on PostgreSQL");
      results.path = measurePostPath();
    }

    if (!o.skip.has("pacing")) {
      await waitIdle(o.idle);
      results.pacing = await measurePacing({
        env: RELAY_ENV,
        message: MESSAGE,
        headers: BROWSER_HEADERS,
        backlog: o.backlog,
        visitors: o.visitors,
        replicas: o.replicas,
        log,
      });
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

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
