// How the page cache keys pages: by what a page reads (its path and its
// loader data), never by the query string, so random query strings neither
// cause renders nor add pages. tests/integration/html-cache.test.ts checks
// the cache through the production server.
import type { EntryContext } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { htmlCache } from "~/lib/html-cache.server";

/** The part of Remix's entry context the cache reads. */
function context(loaderData: Record<string, unknown>) {
  return { staticHandlerContext: { loaderData, actionData: null, errors: null } } as unknown as EntryContext;
}

function lookUp(path: string, loaderData: Record<string, unknown>, nonce: string) {
  const request = new Request(`http://localhost${path}`, { headers: { "Accept-Encoding": "identity" } });
  return htmlCache(request, 200, new Headers(), context(loaderData), nonce);
}

/** Looks the page up and, on a miss, renders and keeps it; true when it was a hit. */
async function serve(path: string, loaderData: Record<string, unknown>) {
  const nonce = crypto.randomUUID();
  const cache = lookUp(path, loaderData, nonce);
  if (cache.hit) return { hit: true, html: await cache.hit.text(), nonce };
  const rendered = new Response(`<html><script nonce="${nonce}"></script>${path}</html>`, { status: 200 });
  return { hit: false, html: await (await cache.keep(rendered)).text(), nonce };
}

describe("page cache key", () => {
  it("serves one page for every query string of a path", async () => {
    const data = { root: { theme: "dark" }, page: { n: 1 } };
    expect((await serve("/query?utm_source=a", data)).hit).toBe(false);
    // Far more query strings than the cache holds pages: none renders, and
    // the first page is still there after them.
    for (let i = 0; i < 100; i++) {
      expect((await serve(`/query?x=${crypto.randomUUID()}`, data)).hit, `request ${i}`).toBe(true);
    }
    const again = await serve("/query", data);
    expect(again).toMatchObject({ hit: true });
    expect(again.html).toBe(`<html><script nonce="${again.nonce}"></script>/query?utm_source=a</html>`);
  });

  it("keeps pages apart by path and by loader data", async () => {
    const dark = { root: { theme: "dark" } };
    const light = { root: { theme: "light" } };
    expect((await serve("/apart", dark)).hit).toBe(false);
    expect((await serve("/apart", light)).hit).toBe(false);
    expect((await serve("/apart-too", dark)).hit).toBe(false);
    expect((await serve("/apart?q=1", light)).hit).toBe(true);
  });
});
