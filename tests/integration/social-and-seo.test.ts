// What a share, a crawler or an install reads, from the production build:
// every URL the head of / names, the generated preview and icons, the
// sitemap, robots.txt and the web app manifest.
import { Window } from "happy-dom";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { site } from "~/content/site";
import { startAppServer, type AppServer } from "../support/app-server";
import { decodePng } from "../support/png";

let app: AppServer;
let head: Element;

beforeAll(async () => {
  app = await startAppServer();
  const html = await (await fetch(`${app.url}/`)).text();
  const document = new new Window().DOMParser().parseFromString(html, "text/html");
  head = document.head as unknown as Element;
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

/** The public address as this test server: scrapers ask siteUrl, we ask 127.0.0.1. */
function local(url: string) {
  const resolved = new URL(url, site.siteUrl);
  expect(resolved.origin, url).toBe(new URL(site.siteUrl).origin);
  return `${app.url}${resolved.pathname}${resolved.search}`;
}

function meta(key: string) {
  const tag = head.querySelector(`meta[property="${key}"], meta[name="${key}"]`);
  expect(tag, key).not.toBeNull();
  return tag!.getAttribute("content")!;
}

async function get(url: string, type: RegExp) {
  const response = await fetch(local(url));
  expect(response.status, url).toBe(200);
  expect(response.headers.get("Content-Type"), url).toMatch(type);
  return response;
}

describe("head of /", () => {
  it("points every link and URL-valued meta tag at a URL that answers 200 with the right type", async () => {
    const expected: [string, RegExp][] = [];
    for (const link of head.querySelectorAll("link[href]")) {
      const rel = link.getAttribute("rel")!;
      const type = {
        stylesheet: /^text\/css/,
        icon: /^image\/svg\+xml/,
        "apple-touch-icon": /^image\/png$/,
        manifest: /^application\/manifest\+json/,
        canonical: /^text\/html/,
        modulepreload: /javascript/,
      }[rel];
      expect(type, `a type for rel=${rel}`).toBeDefined();
      expected.push([link.getAttribute("href")!, type!]);
    }
    expected.push([meta("og:image"), /^image\/png$/], [meta("og:url"), /^text\/html/]);
    const rels = [...head.querySelectorAll("link")].map((link) => link.getAttribute("rel"));
    expect(rels).toEqual(expect.arrayContaining(["icon", "apple-touch-icon", "manifest", "canonical"]));
    for (const [url, type] of expected) await get(url, type);
  });

  it("names a large preview: absolute og:image from siteUrl with its size, type and alt text", () => {
    expect(meta("og:image")).toMatch(new RegExp(`^${site.siteUrl}/assets/social-preview-[0-9a-f]+\\.png$`));
    expect(meta("og:image:type")).toBe("image/png");
    expect(meta("og:image:width")).toBe("1200");
    expect(meta("og:image:height")).toBe("630");
    expect(meta("og:image:alt")).toContain(site.name);
    expect(meta("og:image:alt")).toContain(site.role);
    expect(meta("twitter:card")).toBe("summary_large_image");
  });

  it("gives theme-color the stylesheet's page backgrounds", () => {
    const colours = [...head.querySelectorAll('meta[name="theme-color"]')].map((tag) => [
      tag.getAttribute("media"),
      tag.getAttribute("content"),
    ]);
    expect(colours).toEqual([
      ["(prefers-color-scheme: dark)", "#09090b"],
      ["(prefers-color-scheme: light)", "#ffffff"],
    ]);
  });
});

describe("the generated preview image", () => {
  it("is a 1200x630 PNG that decodes, cached for a year under its content hash", async () => {
    const response = await get(meta("og:image"), /^image\/png$/);
    expect(response.headers.get("Cache-Control")).toContain("immutable");
    expect(decodePng(Buffer.from(await response.arrayBuffer()))).toEqual({ width: 1200, height: 630 });
  });

  it("is a real check: a truncated or foreign file does not decode", async () => {
    const png = Buffer.from(await (await get(meta("og:image"), /^image\/png$/)).arrayBuffer());
    expect(() => decodePng(png.subarray(0, png.length / 2))).toThrow();
    expect(() => decodePng(Buffer.from("GIF89a"))).toThrow(/signature/);
  });
});

describe("sitemap.xml and robots.txt", () => {
  it("serves a sitemap that parses as XML and lists siteUrl", async () => {
    const response = await get("/sitemap.xml", /^application\/xml/);
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const xml = new new Window().DOMParser().parseFromString(await response.text(), "application/xml");
    expect(xml.getElementsByTagName("parsererror")).toHaveLength(0);
    expect(xml.documentElement.nodeName).toBe("urlset");
    expect(xml.documentElement.getAttribute("xmlns")).toBe("http://www.sitemaps.org/schemas/sitemap/0.9");
    const locations = [...xml.getElementsByTagName("loc")].map((loc) => loc.textContent);
    expect(locations).toEqual([`${site.siteUrl}/`]);
  });

  it("serves robots.txt that allows crawling and names the sitemap at siteUrl", async () => {
    const response = await get("/robots.txt", /^text\/plain/);
    expect(response.headers.get("Content-Security-Policy")).toMatch(/default-src 'none'/);
    const lines = (await response.text()).split("\n");
    expect(lines).toContain("User-agent: *");
    expect(lines).toContain("Allow: /");
    expect(lines).toContain(`Sitemap: ${site.siteUrl}/sitemap.xml`);
  });
});

describe("manifest.webmanifest", () => {
  it("names the site, both theme colours and icons that exist at their stated sizes", async () => {
    const response = await get("/manifest.webmanifest", /^application\/manifest\+json/);
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const manifest = await response.json();
    expect(manifest).toMatchObject({
      name: expect.stringContaining(site.name),
      short_name: site.name,
      start_url: "/",
      display: "standalone",
      theme_color: "#09090b",
      background_color: "#09090b",
    });
    const icons = manifest.icons as { src: string; sizes: string; type: string; purpose: string }[];
    expect(icons.map((icon) => `${icon.sizes} ${icon.purpose}`).sort()).toEqual([
      "192x192 any",
      "512x512 any",
      "512x512 maskable",
    ]);
    for (const icon of icons) {
      expect(icon.type).toBe("image/png");
      const png = Buffer.from(await (await get(icon.src, /^image\/png$/)).arrayBuffer());
      const { width, height } = decodePng(png);
      expect(`${width}x${height}`, icon.src).toBe(icon.sizes);
    }
  });

  it("links a 180 px apple-touch-icon", async () => {
    const href = head.querySelector('link[rel="apple-touch-icon"]')!.getAttribute("href")!;
    const png = Buffer.from(await (await get(href, /^image\/png$/)).arrayBuffer());
    expect(decodePng(png)).toEqual({ width: 180, height: 180 });
  });
});
