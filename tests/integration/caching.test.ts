// Caching and compression as the production server answers: hashed assets for
// a year, unhashed public files briefly; a page that depends on nothing the
// visitor sent for shared caches, anything made for a cookie, setting one or
// answering a post never (decision 027); compressed when the client asks.
// Raw HTTP (node:http), so what arrives on the wire is what is checked.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BROWSER_HEADERS, VALID, formBody } from "../support/contact";
import { decode, header, raw as rawRequest, type Raw } from "../support/raw-http";
import { useAppServer } from "../support/use-app-server";

const server = useAppServer({
  env: { OUTBOX_DIR: mkdtempSync(join(tmpdir(), "portfolio-caching-outbox-")) },
});

const raw = (path: string, headers: Record<string, string> = {}, method = "GET", body?: string) =>
  rawRequest(`${server.app.url}${path}`, { method, headers: { ...BROWSER_HEADERS, ...headers }, body });

const varyList = (response: Raw) =>
  header(response, "vary")
    .toLowerCase()
    .split(/\s*,\s*/);

async function assetPaths(): Promise<string[]> {
  const html = decode(await raw("/"));
  return [...new Set([...html.matchAll(/"(\/assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]!))];
}

describe("hashed assets", () => {
  it("are cached for a year, immutable", async () => {
    const paths = await assetPaths();
    expect(paths.some((path) => path.endsWith(".css"))).toBe(true);
    expect(paths.some((path) => path.endsWith(".js"))).toBe(true);
    for (const path of paths) {
      const response = await raw(path);
      expect(response.status, path).toBe(200);
      expect(header(response, "cache-control"), path).toBe("public, max-age=31536000, immutable");
    }
  });

  it("are compressed when asked", async () => {
    const sizes = await Promise.all(
      (await assetPaths()).map(async (path) => ({ path, size: (await raw(path)).body.length })),
    );
    // The compression middleware leaves bodies under 1 KB alone.
    const large = sizes.filter(({ size }) => size > 1024);
    expect(large.length).toBeGreaterThan(0);
    for (const { path, size } of large) {
      const response = await raw(path, { "Accept-Encoding": "gzip" });
      expect(header(response, "content-encoding"), path).toBe("gzip");
      expect(response.body.length, path).toBeLessThan(size);
    }
  });
});

describe("unhashed public files", () => {
  it("get a short cache, never immutable (a changed favicon must show up)", async () => {
    for (const path of ["/favicon.svg", "/robots.txt"]) {
      const response = await raw(path);
      expect(response.status, path).toBe(200);
      expect(header(response, "cache-control"), path).toBe("public, max-age=3600");
    }
  });
});

describe("pages and their data", () => {
  const SHARED = "public, max-age=0, s-maxage=300, stale-while-revalidate=60";

  async function themeCookie(theme: "light" | "dark") {
    const chosen = await raw(
      "/action/set-theme",
      { "Content-Type": "application/x-www-form-urlencoded" },
      "POST",
      `theme=${theme}`,
    );
    return String(chosen.headers["set-cookie"]).split(";")[0]!;
  }

  it("without a cookie, a page is for shared caches (browsers revalidate), varying on the cookie and the encoding", async () => {
    for (const path of ["/", "/?utm_source=x", "/no-such-page"]) {
      const response = await raw(path, { "Accept-Encoding": "gzip" });
      expect(header(response, "cache-control"), path).toBe(SHARED);
      expect(response.headers["set-cookie"], path).toBeUndefined();
      expect(varyList(response), path).toEqual(expect.arrayContaining(["cookie", "accept-encoding"]));
    }
  });

  it("with any cookie, a page is private and revalidated", async () => {
    for (const cookie of [await themeCookie("light"), await themeCookie("dark"), "unrelated=1"]) {
      const response = await raw("/", { Cookie: cookie, "Accept-Encoding": "gzip" });
      expect(response.status, cookie).toBe(200);
      expect(header(response, "cache-control"), cookie).toBe("private, no-cache");
      expect(varyList(response), cookie).toEqual(expect.arrayContaining(["cookie", "accept-encoding"]));
    }
  });

  it("a page that sets a cookie (the flash after a sent post) is private", async () => {
    const sent = await raw(
      "/?index",
      { "Content-Type": "application/x-www-form-urlencoded" },
      "POST",
      formBody(VALID).toString(),
    );
    expect(sent.status).toBe(303);
    const flash = String(sent.headers["set-cookie"]).split(";")[0]!;
    const page = await raw("/", { Cookie: flash });
    expect(page.headers["set-cookie"]).toBeDefined();
    expect(header(page, "cache-control")).toBe("private, no-cache");
    expect(decode(page)).toContain("Message Sent");
  });

  it("a refused post's page, with the typed text in it, is kept nowhere", async () => {
    const refused = await raw(
      "/?index",
      { "Content-Type": "application/x-www-form-urlencoded" },
      "POST",
      formBody({ ...VALID, email: "not-an-address" }).toString(),
    );
    expect(refused.status).toBe(400);
    expect(header(refused, "cache-control")).toBe("private, no-store");
    expect(decode(refused)).toContain(VALID.message);
  });

  it("a refused post's data, with the typed text in it, is kept nowhere either (JavaScript's path)", async () => {
    const refused = await raw(
      "/_root.data?index",
      { "Content-Type": "application/x-www-form-urlencoded" },
      "POST",
      formBody({ ...VALID, email: "not-an-address" }).toString(),
    );
    expect(refused.status).toBe(400);
    expect(header(refused, "cache-control")).toBe("private, no-store");
    expect(decode(refused)).toContain(VALID.subject);
  });

  it("data requests and /healthz are never kept by shared caches", async () => {
    const data = await raw("/_root.data");
    expect(header(data, "cache-control")).toBe("private, no-cache");
    expect(varyList(data)).toContain("cookie");
    expect(header(await raw("/healthz"), "cache-control")).toBe("no-store");
  });

  it("differ by theme cookie, which is why they vary on it", async () => {
    const themed = await raw(
      "/action/set-theme",
      { "Content-Type": "application/x-www-form-urlencoded" },
      "POST",
      "theme=light",
    );
    const cookie = String(themed.headers["set-cookie"]).split(";")[0]!;
    expect(decode(await raw("/", { Cookie: cookie }))).toMatch(/<html[^>]*class="light"/);
    expect(decode(await raw("/"))).toMatch(/<html[^>]*class="dark"/);
  });

  it("are compressed with gzip or brotli when asked, and plain when not", async () => {
    const gzip = await raw("/", { "Accept-Encoding": "gzip" });
    expect(header(gzip, "content-encoding")).toBe("gzip");
    expect(decode(gzip)).toContain("</html>");
    const br = await raw("/", { "Accept-Encoding": "br" });
    expect(header(br, "content-encoding")).toBe("br");
    expect(decode(br)).toContain("</html>");
    const plain = await raw("/", { "Accept-Encoding": "identity" });
    expect(header(plain, "content-encoding")).toBe("");
    expect(decode(plain)).toContain("</html>");
  });
});
