// The rendered-page cache (app/html-cache/html-cache.server.ts) against the
// production server: every response has its own nonce, in its CSP header and
// on every script; the markup is otherwise the one React rendered; the theme
// cookie and form posts never get another visitor's page, and a query string
// changes nothing.
import { describe, expect, it } from "vitest";
import { useAppServer } from "../support/use-app-server";

const BROWSER = {
  "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36",
};

type Page = { status: number; html: string; nonce: string; encoding: string | null };

function cspNonce(res: Response): string {
  const csp = res.headers.get("Content-Security-Policy") ?? "";
  const match = /'nonce-([^']+)'/.exec(csp);
  if (!match) throw new Error(`no nonce in CSP: ${csp}`);
  return match[1]!;
}

describe("rendered-page cache", () => {
  const server = useAppServer();
  const get = async (path = "/", headers: Record<string, string> = {}): Promise<Page> => {
    const res = await fetch(`${server.app.url}${path}`, { headers: { ...BROWSER, ...headers } });
    return {
      status: res.status,
      html: await res.text(),
      nonce: cspNonce(res),
      encoding: res.headers.get("Content-Encoding"),
    };
  };
  /** The markup with this response's nonce taken out. */
  const markup = (page: Page) => page.html.split(page.nonce).join("NONCE");

  // First in this file: the server has not rendered `/` yet.
  it("renders a page that does not depend on its query string, and serves it for every query", async () => {
    const token = `probe${Date.now()}`;
    const first = await get(`/?utm_source=${token}`);
    expect(first.status).toBe(200);
    expect(first.html).not.toContain(token);
    const plain = await get("/");
    const other = await get(`/?x=${Math.random()}`);
    expect(markup(plain)).toBe(markup(first));
    expect(markup(other)).toBe(markup(first));
  });

  it("gives every response a fresh nonce, the one in its CSP header, on every script", async () => {
    const pages = [];
    for (let i = 0; i < 6; i++) pages.push(await get());
    expect(new Set(pages.map((p) => p.nonce)).size).toBe(pages.length);
    for (const page of pages) {
      expect(page.status).toBe(200);
      const scripts = [...page.html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length).toBeGreaterThan(2);
      for (const tag of scripts) expect(tag).toContain(`nonce="${page.nonce}"`);
      expect(page.html.match(/nonce="([^"]+)"/g)!.every((n) => n === `nonce="${page.nonce}"`)).toBe(true);
    }
    // Apart from the nonce, the cached copies are the first render, served
    // gzipped from the cache (fetch decodes them) or as text.
    expect(pages.slice(1).map((p) => p.encoding)).toEqual(Array(pages.length - 1).fill("gzip"));
    const identity = await get("/", { "Accept-Encoding": "identity" });
    expect(identity.encoding).toBeNull();
    expect(new Set([...pages, identity].map(markup)).size).toBe(1);
  });

  it("keeps the pages of the two themes apart", async () => {
    const dark = await get();
    const choose = await fetch(`${server.app.url}/action/set-theme`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ theme: "light" }),
    });
    const cookie = choose.headers.get("Set-Cookie")!.split(";")[0]!;
    const light = await get("/", { Cookie: cookie });
    const lightAgain = await get("/", { Cookie: cookie });
    const darkAgain = await get();
    expect(dark.html).toMatch(/<html lang="en" class="dark"/);
    expect(light.html).toMatch(/<html lang="en" class="light"/);
    expect(markup(lightAgain)).toBe(markup(light));
    expect(markup(darkAgain)).toBe(markup(dark));
  });

  it("renders form posts afresh and never serves their page to a GET", async () => {
    const before = await get();
    const post = await fetch(`${server.app.url}/?index`, {
      method: "POST",
      headers: { ...BROWSER, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "", email: "not-an-email", subject: "", message: "" }),
    });
    const posted = await post.text();
    expect(post.status).not.toBe(200);
    expect(posted.split(cspNonce(post)).join("NONCE")).not.toBe(markup(before));
    expect(markup(await get())).toBe(markup(before));
  });
});
