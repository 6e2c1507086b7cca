// Pages as the production server sends them (app/page-response.server.ts):
// the same page is the same bytes on every request, after a restart and on
// another replica of the build, with a strong ETag made from those bytes;
// If-None-Match gets 304 with no body; the theme cookie and form posts never
// get another visitor's page, and a query string changes nothing.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS } from "../support/contact";
import { decode, header, raw, type Raw } from "../support/raw-http";

const SESSION_SECRET = "a-secret-the-two-replicas-share-0123456789";
let replicas: AppServer[] = [];

beforeAll(async () => {
  replicas = await Promise.all([0, 1].map(() => startAppServer({ env: { SESSION_SECRET } })));
}, 60_000);

afterAll(async () => {
  await Promise.all(replicas.map((app) => app.stop()));
});

const get = (path = "/", headers: Record<string, string> = {}, app = replicas[0]!) =>
  raw(`${app.url}${path}`, { headers: { ...BROWSER_HEADERS, ...headers } });

async function lightCookie(app = replicas[0]!) {
  const chosen = await raw(`${app.url}/action/set-theme`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "theme=light",
  });
  return String(chosen.headers["set-cookie"]).split(";")[0]!;
}

/** What must be equal for two answers to be the same page: status, bytes and the headers that describe them. */
const identity = (response: Raw) => ({
  status: response.status,
  body: response.body.toString("base64"),
  etag: header(response, "etag"),
  csp: header(response, "content-security-policy"),
  encoding: header(response, "content-encoding"),
});

describe("one page, one set of bytes", () => {
  // First in this file: neither server has rendered `/` yet.
  it("a query string changes nothing: the first render is the page for every query", async () => {
    const token = `probe${Date.now()}`;
    const first = await get(`/?utm_source=${token}`, { "Accept-Encoding": "identity" });
    expect(first.status).toBe(200);
    expect(decode(first)).not.toContain(token);
    expect(identity(await get("/", { "Accept-Encoding": "identity" }))).toEqual(identity(first));
    expect(identity(await get(`/?x=${Math.random()}`, { "Accept-Encoding": "identity" }))).toEqual(
      identity(first),
    );
  });

  it("is byte-identical across requests and replicas, in each encoding, for each theme and for the 404", async () => {
    const cookies = [undefined, await lightCookie(replicas[0]), await lightCookie(replicas[1])];
    for (const path of ["/", "/no-such-page"]) {
      for (const encoding of ["identity", "gzip", "br"]) {
        for (const cookie of cookies) {
          const headers: Record<string, string> = {
            "Accept-Encoding": encoding,
            ...(cookie && { Cookie: cookie }),
          };
          const answers = [];
          for (const app of [...replicas, ...replicas]) answers.push(identity(await get(path, headers, app)));
          const what = `${path} ${encoding} ${cookie ? "light" : "cookieless"}`;
          expect(answers[0]!.encoding, what).toBe(encoding === "identity" ? "" : encoding);
          for (const answer of answers.slice(1)) expect(answer, what).toEqual(answers[0]);
        }
      }
    }
  });

  it("is the same bytes after a restart", async () => {
    const before = identity(await get("/", { "Accept-Encoding": "br" }));
    await replicas[1]!.stop();
    replicas[1] = await startAppServer({ env: { SESSION_SECRET } });
    expect(identity(await get("/", { "Accept-Encoding": "br" }, replicas[1]))).toEqual(before);
  }, 60_000);

  it("has a strong ETag made from its bytes, one per encoding and per page", async () => {
    const plain = await get("/", { "Accept-Encoding": "identity" });
    const hash = createHash("sha256").update(plain.body).digest("base64url").slice(0, 32);
    expect(header(plain, "etag")).toBe(`"${hash}"`);
    const gzip = await get("/", { "Accept-Encoding": "gzip" });
    const br = await get("/", { "Accept-Encoding": "br" });
    expect(header(gzip, "etag")).toBe(`"${hash}-gzip"`);
    expect(header(br, "etag")).toBe(`"${hash}-br"`);
    expect(decode(gzip)).toBe(plain.body.toString());
    expect(decode(br)).toBe(plain.body.toString());
    const light = await get("/", { "Accept-Encoding": "identity", Cookie: await lightCookie() });
    expect(decode(light)).toMatch(/<html lang="en" class="light"/);
    expect(header(light, "etag")).not.toBe(header(plain, "etag"));
  });

  it("answers If-None-Match with 304 and no body, and a changed page with 200", async () => {
    for (const encoding of ["identity", "gzip", "br"]) {
      const page = await get("/", { "Accept-Encoding": encoding });
      const etag = header(page, "etag");
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
        const again = await get("/", { "Accept-Encoding": encoding, "If-None-Match": ifNoneMatch });
        expect(again.status, ifNoneMatch).toBe(304);
        expect(again.body.length).toBe(0);
        expect(header(again, "etag")).toBe(etag);
        expect(header(again, "cache-control")).toBe(header(page, "cache-control"));
        expect(header(again, "vary")).toBe(header(page, "vary"));
      }
    }
    const stale = await get("/", { "If-None-Match": '"an-older-page"' });
    expect(stale.status).toBe(200);
    expect(decode(stale)).toContain("</html>");
    // A 404 is never "not modified".
    const missing = await get("/no-such-page");
    expect((await get("/no-such-page", { "If-None-Match": header(missing, "etag") })).status).toBe(404);
  });

  it("a forged contact flash gets the kept page: no cookie set, the same bytes as without it", async () => {
    const plain = await get("/", { "Accept-Encoding": "br" });
    for (const forged of ["contact_flash=x", `contact_flash=${Math.random()}`, "contact_flash=InNlbnQi"]) {
      const page = await get("/", { "Accept-Encoding": "br", Cookie: forged });
      expect(page.headers["set-cookie"], forged).toBeUndefined();
      expect(header(page, "etag"), forged).toBe(header(plain, "etag"));
      expect(decode(page)).not.toContain("Message Sent!");
    }
  });

  it("keeps the pages of the two themes apart", async () => {
    const cookie = await lightCookie();
    const pages = [
      await get(),
      await get("/", { Cookie: cookie }),
      await get(),
      await get("/", { Cookie: cookie }),
    ];
    expect(pages.map((page) => /<html lang="en" class="(\w+)"/.exec(decode(page))?.[1])).toEqual([
      "dark",
      "light",
      "dark",
      "light",
    ]);
    expect(identity(pages[2]!)).toEqual(identity(pages[0]!));
    expect(identity(pages[3]!)).toEqual(identity(pages[1]!));
  });

  it("renders form posts afresh and never serves their page to a GET", async () => {
    const before = identity(await get());
    const mark = `typed-${Date.now()}`;
    const post = await raw(`${replicas[0]!.url}/?index`, {
      method: "POST",
      headers: { ...BROWSER_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: mark, email: "not-an-email", subject: "", message: "" }).toString(),
    });
    expect(post.status).toBe(400);
    expect(decode(post)).toContain(mark);
    const after = await get();
    expect(identity(after)).toEqual(before);
    expect(decode(after)).not.toContain(mark);
  });
});

describe("an encoding the client refuses", () => {
  // Negotiation finding nothing acceptable answered 500 ("-undefined" ETag) or "Content-Encoding: undefined".
  it.each(["*;q=0", "identity;q=0", "br;q=0, gzip;q=0, identity;q=0"])(
    "%s gets the plain page, kept or rendered, never a 500",
    async (acceptEncoding) => {
      for (const cookie of [undefined, "unrelated=1"]) {
        const asked: Record<string, string> = cookie ? { Cookie: cookie } : {};
        const plain = await get("/", { ...asked, "Accept-Encoding": "identity" });
        const page = await get("/", { ...asked, "Accept-Encoding": acceptEncoding });
        const what = `${acceptEncoding} ${cookie ?? "cookieless"}`;
        expect(page.status, what).toBe(200);
        expect(header(page, "content-encoding"), what).toBe("");
        expect(header(page, "etag"), what).toBe(header(plain, "etag"));
        expect(page.body.equals(plain.body), what).toBe(true);
      }
    },
  );
});
