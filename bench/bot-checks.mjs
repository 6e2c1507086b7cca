// What the proof that a person sent a message costs (decision 029), measured on the production build:
// server CPU per verified post against the same post with the checks off, the JS the page loads
// first and when the form is focused, and in Chromium at 4x CPU slowdown the time to solve a challenge
// and the longest main-thread task it causes. Prints a Markdown table.
// usage: node bench/bot-checks.mjs [--posts N] [--runs N]   (after npm run build)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { median, withChromium } from "./lib/common.mjs";
import { cpuMs } from "./lib/load.mjs";
import { importTs } from "./lib/ts.mjs";

const { values: options } = parseArgs({
  options: { posts: { type: "string", default: "200" }, runs: { type: "string", default: "5" } },
});
const POSTS = Number(options.posts);
const RUNS = Number(options.runs);
const FORM = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  subject: "Engines",
  message: "Hello, about engines.",
};
const BROWSER = {
  "User-Agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Accept-Language": "en",
};

const { modules, close } = await importTs("tests/support/app-server.ts", "tests/support/proof.ts");
await close();
const [{ startAppServer }, { fetchProof }] = modules;

async function startServer(env) {
  const outbox = mkdtempSync(path.join(tmpdir(), "bench-bots-"));
  const app = await startAppServer({
    env: {
      OUTBOX_DIR: outbox,
      TRUST_PROXY: "1",
      CONTACT_RATE_LIMIT_MAX: "1000000",
      CONTACT_PROOF_MIN_SECONDS: "0",
      ...env,
    },
  });
  return {
    url: app.url,
    cpuMs: () => cpuMs(app.child.pid),
    stop: async () => {
      await app.stop();
      rmSync(outbox, { recursive: true, force: true });
    },
  };
}

const post = (url, client, extra) =>
  fetch(`${url}/?index`, {
    method: "POST",
    redirect: "manual",
    headers: {
      ...BROWSER,
      Origin: url,
      "Content-Type": "application/x-www-form-urlencoded",
      "X-Forwarded-For": client,
    },
    body: new URLSearchParams({ ...FORM, message: `${FORM.message} ${client}`, ...extra }),
  }).then(async (response) => {
    await response.arrayBuffer();
    if (response.status !== 303) throw new Error(`post answered ${response.status}`);
  });

/** Server CPU per post, checks on (a solved proof each) and off, and per challenge issued. */
async function serverCpu() {
  const on = await startServer({ CONTACT_BOT_CHECKS: "on" });
  const off = await startServer({ CONTACT_BOT_CHECKS: "off" });
  try {
    const clients = Array.from({ length: POSTS }, (_, i) => `10.9.${i >> 8}.${i & 255}`);
    const challengeStart = on.cpuMs();
    const proofs = [];
    for (const client of clients) {
      proofs.push((await fetchProof(on.url, { "X-Forwarded-For": client })).payload);
    }
    const perChallenge = (on.cpuMs() - challengeStart) / POSTS;
    const measure = async (server, extra) => {
      const start = server.cpuMs();
      for (const [i, client] of clients.entries()) await post(server.url, client, extra(i));
      return (server.cpuMs() - start) / POSTS;
    };
    const verified = await measure(on, (i) => ({ altcha: proofs[i] }));
    const unchecked = await measure(off, () => ({}));
    return { perChallenge, verified, unchecked };
  } finally {
    await on.stop();
    await off.stop();
  }
}

/** JS the page loads before hydration, then what focusing the form adds; and the solve at 4x CPU. */
async function inBrowser() {
  const server = await startServer({ CONTACT_BOT_CHECKS: "on" });
  try {
    return await withChromium(async (browser) => {
      const page = await browser.newPage();
      const scripts = new Map();
      page.on("response", async (response) => {
        if (!new URL(response.url()).pathname.endsWith(".js")) return;
        const sizes = await response
          .request()
          .sizes()
          .catch(() => null);
        scripts.set(response.url(), sizes?.responseBodySize ?? 0);
      });
      await page.setExtraHTTPHeaders({ "Accept-Encoding": "gzip" });
      await page.goto(server.url);
      await page.waitForFunction(() => !document.getElementById("mobile-nav")?.className.includes("target:"));
      const firstLoad = [...scripts.values()].reduce((sum, size) => sum + size, 0);
      const before = new Set(scripts.keys());
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/contact/challenge")),
        page.focus("#contact-name"),
      ]);
      await page.waitForFunction(() =>
        performance.getEntriesByType("resource").some((e) => e.name.includes("proof.client")),
      );
      const proofUrl = [...scripts.keys()].find((url) => url.includes("proof.client"));
      const onFocus = [...scripts.entries()]
        .filter(([url]) => !before.has(url))
        .reduce((sum, [, size]) => sum + size, 0);

      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
      const solves = [];
      for (let i = 0; i < RUNS; i++) {
        solves.push(
          await page.evaluate(async (url) => {
            const longest = [];
            const observer = new PerformanceObserver((list) => {
              for (const entry of list.getEntries()) longest.push(entry.duration);
            });
            observer.observe({ type: "longtask" });
            const proof = await import(url);
            const start = performance.now();
            const solved = await proof.solveContactChallenge();
            const ms = performance.now() - start;
            await new Promise((resolve) => setTimeout(resolve, 0));
            observer.disconnect();
            return { ms, ok: solved !== null, longestTask: Math.max(0, ...longest) };
          }, proofUrl),
        );
      }
      return { firstLoad, onFocus, solves };
    });
  } finally {
    await server.stop();
  }
}

const cpu = await serverCpu();
const browser = await inBrowser();
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;
const solveMs = browser.solves.map((solve) => solve.ms);
const rows = [
  ["server CPU per post, checks on (a verified proof)", `${cpu.verified.toFixed(2)} ms`],
  ["server CPU per post, checks off", `${cpu.unchecked.toFixed(2)} ms`],
  ["server CPU per challenge issued", `${cpu.perChallenge.toFixed(2)} ms`],
  ["JS on first load (gzip, until hydrated)", kb(browser.firstLoad)],
  ["JS added when the form is focused (gzip)", kb(browser.onFocus)],
  [
    `solve at 4x CPU, median of ${RUNS} (min-max)`,
    `${median(solveMs).toFixed(0)} ms (${Math.min(...solveMs).toFixed(0)}-${Math.max(...solveMs).toFixed(0)})`,
  ],
  [
    "longest main-thread task while solving at 4x (tasks over 50 ms)",
    `${Math.max(...browser.solves.map((s) => s.longestTask)).toFixed(0)} ms`,
  ],
  ["solves that found the answer", `${browser.solves.filter((s) => s.ok).length} of ${RUNS}`],
];
console.log(`| figure (${POSTS} posts) | value |\n| --- | --- |`);
for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
