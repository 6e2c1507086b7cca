// Byte budgets of a first visit to `/`, measured on the production build in
// Chromium: every request of the first load (document, stylesheet, scripts
// and module preloads, anything fetched by then) until the page has hydrated
// and every request it started has finished. Sizes are response bodies as
// they crossed the wire, HTTP headers excluded, with the browser asked for
// gzip only, so the budgets hold for the least capable client (brotli, which
// Chromium prefers, only makes them smaller). KB here means 1000 bytes.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measureFirstLoad, summarize } from "../../bench/lib/first-load.mjs";
import { ROOT, startAppServer, type AppServer } from "../support/app-server";
import { chromiumArgs, systemChromium } from "../support/chromium.mjs";
import { waitForHydration } from "../support/hydration";

const KB = 1000;
// JS: 125 KB since the tooltip loads with the page (decision 040).
const BUDGET = { scriptBytes: 125 * KB, stylesheetBytes: 12 * KB, documentBytes: 12 * KB };

type Measured = Awaited<ReturnType<typeof measureFirstLoad>>;
type RequestRecord = Measured["requests"][number];

/** Every broken budget or rule, as readable lines; empty when the load is within budget. */
function budgetViolations(
  requests: RequestRecord[],
  origin: string,
  budget: typeof BUDGET = BUDGET,
): string[] {
  const { byType } = summarize(requests);
  const out: string[] = [];
  const over = (what: string, bytes: number, limit: number) => {
    if (bytes > limit) out.push(`${what}: ${(bytes / KB).toFixed(1)} KB > ${limit / KB} KB`);
  };
  over("JS", byType.script!.wireBytes, budget.scriptBytes);
  over("CSS", byType.stylesheet!.wireBytes, budget.stylesheetBytes);
  over("HTML", byType.document!.wireBytes, budget.documentBytes);
  for (const r of requests) {
    if (new URL(r.url).origin !== origin) out.push(`request to another host: ${r.url}`);
    if (r.type === "font") out.push(`web font: ${r.url}`);
    if (r.failure) out.push(`failed request: ${r.url} (${r.failure})`);
    if (r.status !== null && r.status >= 400) out.push(`${r.status}: ${r.url}`);
  }
  return out;
}

// Each Chromium visit waits on what it needs; a busy machine takes longer than the 5 s default.
describe("first visit to / (production build, Chromium, gzip)", { timeout: 60_000 }, () => {
  let app: AppServer;
  let browser: Browser;
  let first: Measured;
  let html: string;

  beforeAll(async () => {
    app = await startAppServer();
    // What most visitors get: the page kept in the server's memory (the first
    // request renders it; page-response.test.ts checks both are the same bytes).
    html = await (await fetch(`${app.url}/`)).text();
    browser = await chromium.launch({ executablePath: systemChromium, args: chromiumArgs });
    // Hydration, not a quiet network: a busy machine starts the scripts after `load` late (decision 028).
    first = await measureFirstLoad(browser, `${app.url}/`, {
      acceptEncoding: "gzip",
      ready: waitForHydration,
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it("loads HTML, CSS and JS, all compressed with gzip", () => {
    const { byType } = first;
    expect(byType.document!.requests).toBe(1);
    expect(byType.stylesheet!.requests).toBeGreaterThan(0);
    expect(byType.script!.requests).toBeGreaterThan(0);
    expect(first.textLength).toBeGreaterThan(1000);
    for (const r of first.requests.filter((r) => r.wireBytes > 1500)) {
      expect(r.encoding, r.url).toBe("gzip");
    }
  });

  it(`stays within JS ${BUDGET.scriptBytes / KB} KB, CSS ${BUDGET.stylesheetBytes / KB} KB, HTML ${BUDGET.documentBytes / KB} KB, one host, no web font`, () => {
    const summary = Object.entries(first.byType)
      .map(([type, b]) => `${type}: ${b.requests} req, ${(b.wireBytes / KB).toFixed(1)} KB`)
      .join("; ");
    expect(budgetViolations(first.requests, app.url), summary).toEqual([]);
  });

  it("counts every script the document asks for, module preloads included", () => {
    const asked = new Set(
      [...html.matchAll(/<(?:link rel="modulepreload"|script)[^>]* (?:href|src)="([^"]+\.js)"/g)].map(
        (m) => m[1],
      ),
    );
    const loaded = new Set(
      first.requests.filter((r) => r.type === "script").map((r) => new URL(r.url).pathname),
    );
    expect(asked.size).toBeGreaterThan(0);
    for (const path of asked) expect(loaded, path).toContain(path);
  });

  it("counts every script as well when the page's main thread is busy for a second after load", async () => {
    // What a loaded machine does to the page: its scripts start well after `load`.
    const busy = await measureFirstLoad(browser, `${app.url}/`, {
      acceptEncoding: "gzip",
      ready: waitForHydration,
      prepare: (context) =>
        context.addInitScript(() =>
          addEventListener("load", () => {
            for (const start = Date.now(); Date.now() - start < 1000;);
          }),
        ),
    });
    const scripts = (measured: Measured) =>
      measured.requests
        .filter((r) => r.type === "script")
        .map((r) => ({
          path: new URL(r.url).pathname,
          status: r.status,
          failure: r.failure,
          bytes: r.wireBytes,
        }))
        .sort((a, b) => a.path.localeCompare(b.path));
    expect(scripts(busy).length).toBeGreaterThan(0);
    expect(scripts(busy)).toEqual(scripts(first));
  });

  it("asks for no script until the page has loaded: the first paint is HTML and CSS alone", async () => {
    // Remix's scripts wait, as text, in a <noscript> (app/deferred-scripts.tsx).
    const outside = html.replace(/<noscript>[\s\S]*?<\/noscript>/g, "");
    expect(outside).not.toMatch(/<link[^>]+rel="modulepreload"/);
    expect(outside).not.toMatch(/<script[^>]+(?:src=|type="module")/);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/`);
      await waitForHydration(page);
      const { loadEventStart, scripts } = await page.evaluate(() => ({
        loadEventStart: (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming)
          .loadEventStart,
        scripts: performance
          .getEntriesByType("resource")
          .filter((entry) => new URL(entry.name).pathname.endsWith(".js"))
          .map((entry) => ({ name: entry.name, startTime: entry.startTime })),
      }));
      expect(scripts.length).toBeGreaterThan(0);
      for (const script of scripts)
        expect(script.startTime, script.name).toBeGreaterThanOrEqual(loadEventStart);
    } finally {
      await context.close();
    }
  });

  it("has no image or font that holds up the first render", async () => {
    // Images may only come lazily, sized (no layout shift), after the first viewport.
    for (const [img] of html.matchAll(/<img\b[^>]*>/gi)) {
      expect(img).toMatch(/\bloading="lazy"/);
      expect(img).toMatch(/\bwidth="\d+"/);
      expect(img).toMatch(/\bheight="\d+"/);
    }
    expect(html).not.toMatch(/<link[^>]+rel="preload"[^>]+as="(?:image|font)"/i);
    expect(html).not.toMatch(/@font-face|fonts\.googleapis|fonts\.gstatic/i);
    for (const sheet of first.requests.filter((r) => r.type === "stylesheet")) {
      expect(await (await fetch(sheet.url)).text(), sheet.url).not.toMatch(/@font-face|@import/i);
    }
    const images = first.requests.filter((r) => r.type === "image" || r.type === "font");
    expect(images.map((r) => r.url)).toEqual([]);
  });

  it("ships no server code to the browser: remix-themes and session storage stay on the server", () => {
    // Every chunk the browser could ever load, lazy ones included.
    const dir = join(ROOT, "build/client/assets");
    const chunks = readdirSync(dir).filter((name) => name.endsWith(".js"));
    expect(chunks.length).toBeGreaterThan(0);
    for (const name of chunks) {
      expect(readFileSync(join(dir, name), "utf8"), name).not.toMatch(
        /createThemeSessionResolver|createCookieSessionStorage|createSessionStorage|remix-themes/,
      );
    }
  });

  it("has one stylesheet: the one the page links is the one the client's scripts name", () => {
    const sheets = readdirSync(join(ROOT, "build/client/assets")).filter((name) => name.endsWith(".css"));
    expect(sheets).toHaveLength(1);
    expect(html).toContain(`<link rel="stylesheet" href="/assets/${sheets[0]}"/>`);
    expect(first.requests.filter((r) => r.type === "stylesheet").map((r) => new URL(r.url).pathname)).toEqual(
      [`/assets/${sheets[0]}`],
    );
  });

  it("fails when a budget is exceeded", () => {
    const tight = { scriptBytes: 1 * KB, stylesheetBytes: 1 * KB, documentBytes: 1 * KB };
    const violations = budgetViolations(first.requests, app.url, tight);
    expect(violations.map((v) => v.split(":")[0])).toEqual(["JS", "CSS", "HTML"]);
    const foreign = { ...first.requests[0]!, url: "https://fonts.example.com/x.woff2", type: "font" };
    expect(budgetViolations([...first.requests, foreign], app.url)).toEqual(
      expect.arrayContaining([`request to another host: ${foreign.url}`, `web font: ${foreign.url}`]),
    );
  });
});
