import { constants, crc32, deflateRawSync } from "node:zlib";
import type { EntryContext } from "@remix-run/node";

/**
 * Rendered pages, reused. A document depends on its URL, its loader data (the
 * site content, the theme cookie's value, a flash) and nothing else but the
 * CSP nonce. So React renders each distinct page once; later responses get
 * the same markup with their own fresh nonce spliced in. Rendering is most of
 * the cost of a page view (docs/performance.md).
 *
 * Only plain GET documents are kept: status 200, no action data, no errors,
 * no Set-Cookie, loader data that is plain JSON. The key is the path and the
 * loader data, not the query string: no component reads the query, so a
 * page that needs a query parameter gets it through its loader's data, and
 * random query strings neither cause renders nor add pages. At most
 * MAX_PAGES are kept, the oldest dropped first.
 *
 * Pages are also kept gzipped, so a response costs a CRC instead of a
 * compression: each piece between two nonces is compressed on its own and
 * ends byte-aligned (sync flush), and each response's nonce goes between them
 * as a stored (uncompressed) block. No back-reference covers a nonce, so
 * changing it changes nothing else.
 */
const MAX_PAGES = 32;

/** A page split where its render's nonce was: the text pieces, and each one raw-deflated. */
type Page = { text: string[]; bytes: Buffer[]; deflated: Buffer[] };
const pages = new Map<string, Page>();

// gzip header: deflate, no name or flags, no mtime, unknown OS.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
// An empty final block (fixed Huffman), as deflate itself ends a stream.
const LAST_BLOCK = Buffer.from([0x03, 0x00]);

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
  const page = pages.get(key);
  if (page) {
    headers.set("Content-Type", "text/html; charset=utf-8");
    headers.append("Vary", "Accept-Encoding");
    if (!acceptsGzip(request.headers.get("Accept-Encoding"))) {
      return {
        hit: new Response(page.text.join(nonce), { status, headers }),
        cacheable: true,
        keep: (r) => r,
      };
    }
    const body = gzipWithNonce(page, nonce);
    headers.set("Content-Encoding", "gzip");
    headers.set("Content-Length", String(body.length));
    return { hit: new Response(body, { status, headers }), cacheable: true, keep: (r) => r };
  }
  return {
    hit: null,
    cacheable: true,
    async keep(response) {
      const html = await response.text();
      // A render that failed after its shell answers 500: never keep that.
      if (response.status === 200) remember(key, html.split(nonce), nonce);
      return new Response(html, { status: response.status, headers: response.headers });
    },
  };
}

function remember(key: string, text: string[], nonce: string) {
  if (pages.size >= MAX_PAGES) pages.delete(pages.keys().next().value!);
  const bytes = text.map((piece) => Buffer.from(piece));
  // Each piece may refer back to the text before it (the deflate window),
  // given as a dictionary with every nonce as zero bytes: text never contains
  // a zero byte, so no back-reference can cover a nonce.
  const withDictionary = !bytes.some((piece) => piece.includes(0));
  const nonceLength = Buffer.byteLength(nonce);
  let history = Buffer.alloc(0);
  const deflated = bytes.map((piece, i) => {
    if (i > 0) history = Buffer.concat([history, Buffer.alloc(nonceLength)]);
    const dictionary = withDictionary && history.length ? history.subarray(-32_768) : undefined;
    history = Buffer.concat([history, piece]).subarray(-32_768);
    return deflateRawSync(piece, { level: 9, finishFlush: constants.Z_SYNC_FLUSH, dictionary });
  });
  pages.set(key, { text, bytes, deflated });
}

function gzipWithNonce(page: Page, nonce: string) {
  const value = Buffer.from(nonce);
  const stored = Buffer.from([
    0,
    value.length & 0xff,
    value.length >> 8,
    ~value.length & 0xff,
    (~value.length >> 8) & 0xff,
  ]);
  const chunks: Uint8Array[] = [GZIP_HEADER];
  let crc = 0;
  let size = 0;
  page.bytes.forEach((piece, i) => {
    if (i > 0) {
      chunks.push(stored, value);
      crc = crc32(value, crc);
      size += value.length;
    }
    chunks.push(page.deflated[i]!);
    crc = crc32(piece, crc);
    size += piece.length;
  });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  return Buffer.concat([...chunks, LAST_BLOCK, trailer]);
}

/** Whether Accept-Encoding lists gzip with a non-zero weight. */
function acceptsGzip(header: string | null): boolean {
  for (const item of (header ?? "").split(",")) {
    const [name, ...params] = item.split(";").map((x) => x.trim().toLowerCase());
    if (name !== "gzip") continue;
    const q = params.find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

function cacheKey(request: Request, status: number, headers: Headers, context: EntryContext): string | null {
  const { actionData, errors, loaderData } = context.staticHandlerContext;
  if (request.method !== "GET" || status !== 200 || actionData || errors || headers.has("Set-Cookie"))
    return null;
  const data = plainJson(loaderData);
  return data === null ? null : `${new URL(request.url).pathname}\n${data}`;
}

/** The loader data as JSON, or null when JSON would not tell two values apart (promises, dates, maps...). */
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
