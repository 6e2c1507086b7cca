// What a first (cold-cache) visit downloads, measured in Chromium through
// Playwright. Shared by the byte-budget test and `npm run bench` so both
// count bytes the same way.

/** Resource types reported on their own; everything else (fetch, manifest...) is "other". */
export const TYPES = ["document", "script", "stylesheet", "font", "image", "other"];

/**
 * Loads `url` once in a fresh context (cold cache, no service workers), waits
 * for `load`, then for `ready` (when given; the network to go idle when not),
 * then for every request started by then to finish. For every request: its
 * type, status, the response body as it crossed the wire (compressed, HTTP
 * headers excluded), the decoded body and the response headers' size.
 *
 * @param {import("playwright-core").Browser} browser
 * @param {string} url
 * @param {{ javaScriptEnabled?: boolean, acceptEncoding?: string, viewport?: { width: number, height: number }, ready?: (page: import("playwright-core").Page) => Promise<unknown>, prepare?: (context: import("playwright-core").BrowserContext) => Promise<unknown> }} [options]
 *   acceptEncoding: e.g. "gzip" to measure gzip whatever the browser would prefer.
 *   ready: what the measure waits on after `load`, e.g. hydration (decision 028: a busy machine
 *   starts the scripts after `load` later than any network-idle window).
 *   prepare: called with the fresh context before the page opens (init scripts, say).
 */
export async function measureFirstLoad(browser, url, options = {}) {
  const {
    javaScriptEnabled = true,
    acceptEncoding,
    viewport = { width: 1366, height: 768 },
    ready,
    prepare,
  } = options;
  const context = await browser.newContext({ javaScriptEnabled, serviceWorkers: "block", viewport });
  if (acceptEncoding) await context.setExtraHTTPHeaders({ "Accept-Encoding": acceptEncoding });
  await prepare?.(context);
  const page = await context.newPage();
  /** @type {Promise<any>[]} */
  const pending = [];
  const record = async (
    /** @type {import("playwright-core").Request} */ request,
    /** @type {string|null} */ failure,
  ) => {
    const response = failure ? null : await request.response();
    const sizes = failure ? null : await request.sizes();
    let decodedBytes = 0;
    if (response && request.method() !== "HEAD" && response.status() !== 204 && response.status() < 300) {
      decodedBytes = (await response.body().catch(() => Buffer.alloc(0))).length;
    }
    const headers = response ? await response.allHeaders() : {};
    const type = TYPES.includes(request.resourceType()) ? request.resourceType() : "other";
    return {
      url: request.url(),
      type,
      status: response?.status() ?? null,
      wireBytes: sizes?.responseBodySize ?? 0,
      headerBytes: sizes?.responseHeadersSize ?? 0,
      decodedBytes,
      encoding: headers["content-encoding"] ?? null,
      failure,
    };
  };
  /** @type {Map<import("playwright-core").Request, () => void>} */
  const inFlight = new Map();
  /** @type {Promise<void>[]} */
  const settled = [];
  page.on("request", (request) => settled.push(new Promise((done) => inFlight.set(request, done))));
  const settle = (/** @type {import("playwright-core").Request} */ request) => {
    inFlight.get(request)?.();
    inFlight.delete(request);
  };
  page.on("requestfinished", (request) => {
    pending.push(record(request, null));
    settle(request);
  });
  page.on("requestfailed", (request) => {
    pending.push(record(request, request.failure()?.errorText ?? "failed"));
    settle(request);
  });

  await page.goto(url, { waitUntil: "load" });
  if (ready) await ready(page);
  else await page.waitForLoadState("networkidle");
  // Every request started so far, and any it started in turn, has finished.
  for (let seen = 0; seen < settled.length;) {
    seen = settled.length;
    await Promise.all(settled.slice());
  }
  const textLength = await page.evaluate(() => document.body.innerText.replace(/\s+/g, " ").trim().length);
  // Read before closing: a record still asking for sizes or a body would fail with the context.
  const requests = (await Promise.all(pending)).filter((r) => !/^(data|blob):/.test(r.url));
  await context.close();
  return { url, javaScriptEnabled, textLength, requests, ...summarize(requests) };
}

/** Requests, wire and decoded bytes per type and in total. */
export function summarize(
  /** @type {{ type: string, wireBytes: number, decodedBytes: number }[]} */ requests,
) {
  const zero = () => ({ requests: 0, wireBytes: 0, decodedBytes: 0 });
  /** @type {Record<string, { requests: number, wireBytes: number, decodedBytes: number }>} */
  const byType = Object.fromEntries(TYPES.map((t) => [t, zero()]));
  const total = zero();
  for (const r of requests) {
    for (const bucket of [byType[r.type] ?? byType.other, total]) {
      bucket.requests++;
      bucket.wireBytes += r.wireBytes;
      bucket.decodedBytes += r.decodedBytes;
    }
  }
  return { byType, total };
}
