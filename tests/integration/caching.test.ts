// Caching and compression as the production server answers: hashed assets for
// a year, unhashed public files briefly, pages and their data private and
// revalidated, varying on the theme cookie; compressed when the client asks.
// Raw HTTP (node:http), so what arrives on the wire is what is checked.
import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { useAppServer } from "../support/use-app-server";
import { BROWSER_HEADERS } from "../support/contact";

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

const server = useAppServer();

function raw(
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
  body?: string,
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.app.url}${path}`,
      { method, headers: { ...BROWSER_HEADERS, ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const header = (response: Raw, name: string) => String(response.headers[name] ?? "");
const varyList = (response: Raw) =>
  header(response, "vary")
    .toLowerCase()
    .split(/\s*,\s*/);

function decode(response: Raw): string {
  const encoding = header(response, "content-encoding");
  if (encoding === "gzip") return gunzipSync(response.body).toString("utf8");
  if (encoding === "br") return brotliDecompressSync(response.body).toString("utf8");
  return response.body.toString("utf8");
}

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
  it("are private and revalidated, varying on the cookie and the encoding", async () => {
    for (const path of ["/", "/no-such-page", "/_root.data"]) {
      const response = await raw(path, { "Accept-Encoding": "gzip" });
      expect(header(response, "cache-control"), path).toBe("private, no-cache");
      expect(varyList(response), path).toEqual(expect.arrayContaining(["cookie", "accept-encoding"]));
    }
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
