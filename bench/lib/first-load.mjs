// What a first (cold-cache) visit downloads, measured in Chromium through
// Playwright. Shared by the byte-budget test and `npm run bench` so both
// count bytes the same way.

/** Resource types reported on their own; everything else (fetch, manifest...) is "other". */
export const TYPES = ["document", "script", "stylesheet", "font", "image", "other"];

/**
 * Loads `url` once in a fresh context (cold cache, no service workers) and
 * waits for the network to go idle. For every request: its type, status, the
 * response body as it crossed the wire (compressed, HTTP headers excluded),
 * the decoded body and the response headers' size.
 *
 * @param {import("playwright-core").Browser} browser
 * @param {string} url
 * @param {{ javaScriptEnabled?: boolean, acceptEncoding?: string, viewport?: { width: number, height: number } }} [options]
 *   acceptEncoding: e.g. "gzip" to measure gzip whatever the browser would prefer.
 */
export async function measureFirstLoad(browser, url, options = {}) {
  const { javaScriptEnabled = true, acceptEncoding, viewport = { width: 1366, height: 768 } } = options;
  const context = await browser.newContext({ javaScriptEnabled, serviceWorkers: "block", viewport });
  if (acceptEncoding) await context.setExtraHTTPHeaders({ "Accept-Encoding": acceptEncoding });
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
  page.on("requestfinished", (request) => pending.push(record(request, null)));
  page.on("requestfailed", (request) =>
    pending.push(record(request, request.failure()?.errorText ?? "failed")),
  );

  await page.goto(url, { waitUntil: "load" });
  await page.waitForLoadState("networkidle");
  const textLength = await page.evaluate(() => document.body.innerText.replace(/\s+/g, " ").trim().length);
  await context.close();
  const requests = (await Promise.all(pending)).filter((r) => !/^(data|blob):/.test(r.url));
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
