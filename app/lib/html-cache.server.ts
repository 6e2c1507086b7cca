import type { EntryContext } from "@remix-run/node";

/**
 * Rendered pages, reused. A document depends on its URL, its loader data (the
 * site content, the theme cookie's value, a flash) and nothing else but the
 * CSP nonce. So React renders each distinct page once; later responses get
 * the same markup with their own fresh nonce spliced in. Rendering is most of
 * the cost of a page view (docs/performance.md).
 *
 * Only plain GET documents are kept: status 200, no action data, no errors,
 * no Set-Cookie, loader data that is plain JSON. At most MAX_PAGES are kept,
 * the oldest dropped first, so query strings cannot grow the cache.
 */
const MAX_PAGES = 32;
/** Each page split where its render's nonce was. */
const pages = new Map<string, string[]>();

export type HtmlCache = {
  /** The cached page with this response's nonce, when there is one. */
  hit: Response | null;
  /** Whether this document may be cached: render it whole (no streaming) then. */
  cacheable: boolean;
  /** Passes the rendered response through, keeping its markup when cacheable. */
  keep(response: Response): Response | Promise<Response>;
};

export function htmlCache(
  request: Request,
  status: number,
  headers: Headers,
  context: EntryContext,
  nonce: string,
): HtmlCache {
  const key = cacheKey(request, status, headers, context);
  if (key === null) return { hit: null, cacheable: false, keep: (response) => response };
  const parts = pages.get(key);
  if (parts) {
    headers.set("Content-Type", "text/html; charset=utf-8");
    return { hit: new Response(parts.join(nonce), { status, headers }), cacheable: true, keep: (r) => r };
  }
  return {
    hit: null,
    cacheable: true,
    async keep(response) {
      const html = await response.text();
      // A render that failed after its shell answers 500: never keep that.
      if (response.status === 200) remember(key, html.split(nonce));
      return new Response(html, { status: response.status, headers: response.headers });
    },
  };
}

function remember(key: string, parts: string[]) {
  if (pages.size >= MAX_PAGES) pages.delete(pages.keys().next().value!);
  pages.set(key, parts);
}

function cacheKey(request: Request, status: number, headers: Headers, context: EntryContext): string | null {
  const { actionData, errors, loaderData } = context.staticHandlerContext;
  if (request.method !== "GET" || status !== 200 || actionData || errors || headers.has("Set-Cookie")) return null;
  const url = new URL(request.url);
  const data = plainJson(loaderData);
  return data === null ? null : `${url.pathname}${url.search}\n${data}`;
}

/** The loader data as JSON, or null when JSON would not tell two values apart (promises, dates, maps...). */
function plainJson(value: unknown): string | null {
  try {
    return JSON.stringify(value, function (this: Record<string, unknown>, key, converted: unknown) {
      const raw = this[key];
      if (raw === undefined) return "\u0000undefined";
      if (raw === null || typeof raw === "string" || typeof raw === "boolean") return converted;
      if (typeof raw === "number" && Number.isFinite(raw)) return converted;
      if (typeof raw === "object" && (Array.isArray(raw) || Object.getPrototypeOf(raw) === Object.prototype || Object.getPrototypeOf(raw) === null)) {
        return converted;
      }
      throw new Error("not plain JSON");
    });
  } catch {
    return null;
  }
}

/** For tests: forget every page. */
export function clearHtmlCache() {
  pages.clear();
}
