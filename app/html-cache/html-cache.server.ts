import type { EntryContext } from "@remix-run/node";
import { acceptsGzip, deflatePieces, gzipFilled, type Frames } from "./gzip-frames.server";
import { fill, spotAt, typedText, type Spot, type TypedText } from "./typed-text.server";

/**
 * Rendered pages, reused. A document depends on its URL, its loader data (the
 * site content, the theme cookie's value, a flash), its action data and
 * nothing else but the CSP nonce. So React renders each distinct page once;
 * later responses get the same markup with their own fresh nonce spliced in.
 * Rendering is most of the cost of a page view (docs/performance.md).
 *
 * Kept are plain GET documents (status 200, no action data) and refused
 * posts (4xx) whose action data carries the visitor's typed text: those are kept
 * with the typed text as holes, filled for each response
 * (typed-text.server.ts). Never kept: errors, Set-Cookie, and loader or
 * action data that is not plain JSON. The key is the path and the data, not
 * the query string: no component reads the query, so a page that needs a
 * query parameter gets it through its loader's data, and random query
 * strings neither cause renders nor add pages. At most MAX_PAGES are kept,
 * the least recently used dropped first.
 *
 * Pages are also kept gzipped (gzip-frames.server.ts).
 */
const MAX_PAGES = 32;

type Hole = { nonce: true } | { nonce: false; placeholder: string; spot: Spot };
/** A rendered page cut where its nonce and placeholders were: the pieces, the holes between them. */
type Page = { text: string[]; holes: Hole[]; frames: Frames };
const pages = new Map<string, Page>();

/** Renders a document: `whole` waits for all of it (no streaming). */
export type RenderDocument = (context: EntryContext, whole: boolean) => Promise<Response>;

/** The document for this request: a kept page with this response's nonce, or a render (kept when it may be). */
export async function servePage(
  request: Request,
  status: number,
  headers: Headers,
  context: EntryContext,
  nonce: string,
  render: RenderDocument,
): Promise<Response> {
  const shape = pageShape(request, status, headers, context);
  if (!shape) return render(context, false);
  const { key, typed } = shape;
  let page = pages.get(key);
  if (page) {
    // Most recently used last: a run of new shapes drops the pages nobody asks for, not the busy ones.
    pages.delete(key);
    pages.set(key, page);
  } else {
    const rendered = await render(typed?.templateContext() ?? context, true);
    const html = await rendered.text();
    // A render that failed after its shell answers 500: never keep that.
    const kept = rendered.status === status ? cut(html, nonce, typed) : null;
    if (!kept) {
      if (rendered.status === status) warnUnfillable();
      return typed
        ? render(context, false)
        : new Response(html, { status: rendered.status, headers: rendered.headers });
    }
    page = kept;
    remember(key, page);
  }
  const fills = page.holes.map((hole) =>
    hole.nonce ? nonce : fill(hole.spot, typed!.values.get(hole.placeholder)!),
  );
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.append("Vary", "Accept-Encoding");
  if (!acceptsGzip(request.headers.get("Accept-Encoding"))) {
    return new Response(page.text.map((piece, i) => (i > 0 ? fills[i - 1] + piece : piece)).join(""), {
      status,
      headers,
    });
  }
  const body = gzipFilled(page.frames, fills);
  headers.set("Content-Encoding", "gzip");
  headers.set("Content-Length", String(body.length));
  return new Response(body, { status, headers });
}

/** False once a template could not be filled: the form's markup changed, so no refused page is templated. */
let fillable = true;
/** Said once: refusals then cost a whole render each (the integration tests fail on it). */
function warnUnfillable() {
  if (!fillable) return;
  fillable = false;
  console.warn(
    "[html-cache] a refused post's page shows typed text where it cannot be filled in: rendering each",
  );
}

function remember(key: string, page: Page) {
  if (pages.size >= MAX_PAGES) pages.delete(pages.keys().next().value!);
  pages.set(key, page);
}

/** Cuts the template at each nonce and placeholder; null when a placeholder is somewhere fill() cannot write. */
function cut(html: string, nonce: string, typed: TypedText | undefined): Page | null {
  const markers = [nonce, ...(typed?.values.keys() ?? [])];
  const pattern = new RegExp(markers.map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|"), "g");
  const text: string[] = [];
  const holes: Hole[] = [];
  let from = 0;
  for (const match of html.matchAll(pattern)) {
    const marker = match[0];
    if (marker === nonce) {
      holes.push({ nonce: true });
    } else {
      const spot = spotAt(html, match.index, marker);
      if (!spot) return null;
      holes.push({ nonce: false, placeholder: marker, spot });
    }
    text.push(html.slice(from, match.index));
    from = match.index + marker.length;
  }
  text.push(html.slice(from));
  const nonceLength = Buffer.byteLength(nonce);
  return {
    text,
    holes,
    frames: deflatePieces(
      text,
      holes.map((hole) => (hole.nonce ? nonceLength : null)),
    ),
  };
}

function pageShape(
  request: Request,
  status: number,
  headers: Headers,
  context: EntryContext,
): { key: string; typed?: TypedText } | null {
  const { actionData, errors, loaderData } = context.staticHandlerContext;
  if (errors || headers.has("Set-Cookie")) return null;
  const loader = plainJson(loaderData);
  if (loader === null) return null;
  const path = new URL(request.url).pathname;
  if (!actionData) return request.method === "GET" && status === 200 ? { key: `${path}\n${loader}` } : null;
  // Refusals only: a 5xx is rare, and a render that fails answers 500 too.
  const typed = status < 500 && fillable ? typedText(context) : null;
  const action = typed && plainJson(typed.shape);
  return action ? { key: `${path}\n${status}\n${loader}\n${action}`, typed } : null;
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
