// A rendered page made into its response: hashed CSP, ETag, encodings, caching (decisions 027, 031).
import { createHash } from "node:crypto";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { EntryContext } from "@remix-run/node";
import fresh from "fresh";
import { LRUCache } from "lru-cache";
import Negotiator from "negotiator";
import { contentSecurityPolicy } from "~/lib/security-headers.server";

const SHARED_PAGE = "public, max-age=0, s-maxage=300, stale-while-revalidate=60";
const PRIVATE_PAGE = "private, no-cache";
const UNKEPT_PAGE = "private, no-store";

type Encoding = "br" | "gzip" | "identity";
const ENCODINGS: Encoding[] = ["br", "gzip", "identity"];

class Page {
  readonly policy: string;
  private readonly hash: string;
  private readonly forms = new Map<Encoding, Buffer<ArrayBuffer>>();

  constructor(
    html: string,
    readonly status: number,
    private readonly best: boolean,
  ) {
    const bytes = Buffer.from(html);
    this.forms.set("identity", bytes);
    this.hash = createHash("sha256").update(bytes).digest("base64url").slice(0, 32);
    this.policy = contentSecurityPolicy(inlineScriptHashes(html));
  }

  etag(encoding: Encoding) {
    return encoding === "identity" ? `"${this.hash}"` : `"${this.hash}-${encoding}"`;
  }

  body(encoding: Encoding): Buffer<ArrayBuffer> {
    let body = this.forms.get(encoding);
    if (!body) {
      const bytes = this.forms.get("identity")!;
      body =
        encoding === "br"
          ? brotliCompressSync(bytes, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: this.best ? 11 : 5,
                [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
              },
            })
          : gzipSync(bytes, { level: this.best ? 9 : 6 });
      this.forms.set(encoding, body);
    }
    return body;
  }
}

// Every inline script that runs (decision 013's <noscript> too); React and Remix escape `<` elsewhere.
function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const [, attributes, text] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    const type = /\btype="([^"]*)"/.exec(attributes!)?.[1];
    if (/\bsrc=/.test(attributes!) || (type && type !== "module")) continue;
    hashes.add(createHash("sha256").update(text!.replace(/\r\n?/g, "\n")).digest("base64"));
  }
  return [...hashes];
}

/** Keyed by path and loader data, never the query (decision 015). */
const cachedPages = new LRUCache<string, Page>({ max: 32 });
/** Under `npm run dev` an edited component changes the page but not its key (decision 031). */
const CACHES_PAGES = process.env.NODE_ENV !== "development";

export async function pageResponse(
  request: Request,
  status: number,
  headers: Headers,
  context: EntryContext,
  render: () => Promise<{ html: string; status: number }>,
): Promise<Response> {
  const key = CACHES_PAGES ? variant(request, status, headers, context) : null;
  let page = key === null ? undefined : cachedPages.get(key);
  if (!page) {
    const rendered = await render();
    // A render that failed part-way answers 500 and is never cached.
    const cache = key !== null && rendered.status === status;
    page = new Page(rendered.html, rendered.status, cache);
    if (cache) cachedPages.set(key, page);
  }
  // Nothing acceptable (`*;q=0`, `identity;q=0`): the plain page all the same (decision 028).
  const encoding =
    (new Negotiator({
      headers: { "accept-encoding": request.headers.get("Accept-Encoding") ?? "identity" },
    }).encoding(ENCODINGS) as Encoding | undefined) ?? "identity";
  const etag = page.etag(encoding);
  headers.set("Cache-Control", cacheControl(request, page.status, headers));
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set("Content-Security-Policy", page.policy);
  headers.append("Vary", "Cookie, Accept-Encoding");
  headers.set("ETag", etag);
  const asked = {
    "if-none-match": request.headers.get("If-None-Match") ?? undefined,
    "cache-control": request.headers.get("Cache-Control") ?? undefined,
  };
  if (page.status === 200 && fresh(asked, { etag })) return new Response(null, { status: 304, headers });
  const body = page.body(encoding);
  if (encoding !== "identity") headers.set("Content-Encoding", encoding);
  headers.set("Content-Length", String(body.length));
  return new Response(body, { status: page.status, headers });
}

/** A page that asks for no-store (the owner's, decision 054) is never kept, here or in a shared cache. */
const unkept = (headers: Headers) => headers.get("Cache-Control") === UNKEPT_PAGE;

function cacheControl(request: Request, status: number, headers: Headers) {
  if (!isRead(request) || unkept(headers)) return UNKEPT_PAGE;
  if (status >= 500) return UNKEPT_PAGE;
  if (request.headers.has("Cookie") || headers.has("Set-Cookie")) return PRIVATE_PAGE;
  return SHARED_PAGE;
}

const isRead = (request: Request) => request.method === "GET" || request.method === "HEAD";

export function dataCaching(headers: Headers) {
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", PRIVATE_PAGE);
  headers.append("Vary", "Cookie");
}

function variant(request: Request, status: number, headers: Headers, context: EntryContext) {
  const { actionData, errors, loaderData, matches } = context.staticHandlerContext;
  if (!isRead(request) || status !== 200 || actionData || errors || headers.has("Set-Cookie")) return null;
  if (unkept(headers)) return null;
  // Another spelling of a page ("//", "/About") is never cached: it would push the real one out (decision 028).
  const pathname = new URL(request.url).pathname;
  if (pathname !== routesPath(matches)) return null;
  const data = plainJson(loaderData);
  return data === null ? null : `${pathname}\n${data}`;
}

function routesPath(matches: EntryContext["staticHandlerContext"]["matches"]): string | null {
  const paths = matches.map(({ route }) => route.path ?? "").filter(Boolean);
  return paths.some((path) => /[:*]/.test(path)) ? null : `/${paths.join("/")}`.replace(/\/+/g, "/");
}

/** The data as JSON, or null when JSON would not tell two values apart (promises, dates, maps...). */
function plainJson(value: unknown): string | null {
  try {
    return JSON.stringify(value, function (this: Record<string, unknown>, key, converted: unknown) {
      const raw = this[key];
      if (raw === undefined) return "\u0000undefined";
      if (raw === null || typeof raw === "string" || typeof raw === "boolean") return converted;
      if (typeof raw === "number" && Number.isFinite(raw)) return converted;
      if (
        typeof raw === "object" &&
        (Array.isArray(raw) ||
          Object.getPrototypeOf(raw) === Object.prototype ||
          Object.getPrototypeOf(raw) === null)
      ) {
        return converted;
      }
      throw new Error("not plain JSON");
    });
  } catch {
    return null;
  }
}
