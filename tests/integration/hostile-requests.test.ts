// Requests a browser would never send, or a proxy in front rewrites, against
// the production server: each gets a clear 4xx (never a 5xx or a reset), no
// mail is sent, and the log has one short line without a stack trace.
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { BROWSER_HEADERS, VALID, formBody } from "../support/contact";
import { useRelayServer } from "../support/relay-server";

const relay = useRelayServer({ CONTACT_RATE_LIMIT_MAX: "1000", TRUST_PROXY: "1" });
beforeEach(() => relay.fake.reset());

type RawAnswer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** A request with exactly these headers (repeated ones as arrays), as a script or a proxy may send it. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body?: string | Buffer,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: relay.app.port, method, path, headers, agent: false },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const FORM = formBody(VALID).toString();
const formHeaders = (extra: Record<string, string | string[]>) => ({
  ...BROWSER_HEADERS,
  "Content-Type": "application/x-www-form-urlencoded",
  ...extra,
});

describe("methods", () => {
  it.each(["PUT", "PATCH", "DELETE"])(
    "%s with a valid form answers 405 with Allow and sends nothing",
    async (method) => {
      const answer = await raw(method, "/?index", formHeaders({ Host: `127.0.0.1:${relay.app.port}` }), FORM);
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe("GET, HEAD, POST");
      expect(relay.fake.requests).toHaveLength(0);
    },
  );

  it("TRACE answers 405, not 500", async () => {
    const answer = await raw("TRACE", "/", { Host: `127.0.0.1:${relay.app.port}` });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe("GET, HEAD, POST");
  });

  it("a path whose route takes no post says so in Allow", async () => {
    const answer = await raw("POST", "/healthz", formHeaders({ Host: `127.0.0.1:${relay.app.port}` }), FORM);
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe("GET, HEAD");
  });
});

describe("malformed URLs", () => {
  it.each(["/%zz", "/%", "/a%E0%A4%A", "/%/../x"])("%s answers 400", async (path) => {
    expect((await raw("GET", path, { Host: `127.0.0.1:${relay.app.port}` })).status).toBe(400);
  });

  it.each([
    ["a Host that is no host name", { Host: "a b#c" }],
    ["a forwarded host that is no host name", { Host: "portfolio.example", "X-Forwarded-Host": "Tv&#t" }],
    [
      "a forwarded scheme that is neither http nor https",
      { Host: "portfolio.example", "X-Forwarded-Proto": "gopher" },
    ],
  ])("%s answers 400", async (_name, headers) => {
    expect((await raw("GET", "/", headers)).status).toBe(400);
  });

  it("a directory path is never redirected off-site", async () => {
    const answer = await raw("GET", "////\\/..", { Host: `127.0.0.1:${relay.app.port}` });
    expect(answer.status).toBeLessThan(500);
    expect(String(answer.headers.location)).toMatch(/^\/[^/\\]/);
  });

  // Each once rendered a fresh page, one cache entry per spelling.
  it.each([
    ["/////", "/"],
    ["//", "/"],
    ["/a//b///c?q=1//2", "/a/b/c?q=1//2"],
    ["//evil.example/x", "/evil.example/x"],
    ["//\\evil.example", "/evil.example"],
    ["///\\/evil.example", "/evil.example"],
  ])("%s is redirected to %s, on this site", async (path, location) => {
    const answer = await raw("GET", path, { Host: `127.0.0.1:${relay.app.port}` });
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(location);
  });

  it("a post to a path with repeated slashes keeps its method and body through a 308", async () => {
    const answer = await raw("POST", "///?index", formHeaders({ Host: `127.0.0.1:${relay.app.port}` }), FORM);
    expect(answer.status).toBe(308);
    expect(answer.headers.location).toBe("/?index");
    expect(relay.fake.requests).toHaveLength(0);
  });

  it.each(["http://evil.example/", "http://127.0.0.1/", "*"])(
    "a request target %s (not a path) answers 400",
    async (target) => {
      const answer = await raw("GET", target, { Host: `127.0.0.1:${relay.app.port}` });
      expect(answer.status).toBe(400);
    },
  );
});

describe("backslashes", () => {
  const host = () => ({ Host: `127.0.0.1:${relay.app.port}` });
  /** The server's CPU time so far, in ms (utime + stime, clock ticks of 10 ms). */
  const cpuMs = () => {
    const fields = readFileSync(`/proc/${relay.app.child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };

  // A backslash is a slash to browsers and to the URL Remix is given: "/\" was the home page, anew.
  it.each([
    ["/\\", "/"],
    ["/\\\\\\", "/"],
    ["/\\evil.example", "/evil.example"],
    ["/a\\b?q=\\", "/a/b?q=\\"],
  ])("%s is redirected to %s, on this site", async (path, location) => {
    const answer = await raw("GET", path, host());
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(location);
  });

  it("40 spellings of / cost no render, nor push / out of memory", async () => {
    await raw("GET", "/", host());
    const before = cpuMs();
    for (let count = 1; count <= 40; count++) {
      expect((await raw("GET", `/${"\\".repeat(count)}`, host())).status).toBe(301);
    }
    for (let count = 0; count < 20; count++) expect((await raw("GET", "/", host())).status).toBe(200);
    // Each was a render and a brotli-11 copy: 62 ms of CPU, 2.5 s for the 40.
    expect(cpuMs() - before).toBeLessThan(500);
  });

  // react-router could not make a URL of "/\": a 500 and a 2 KB stack in the log for each.
  it.each(["/%5C", "/%5c", "/%5C%5C", "/%5C?x=1", "/x/%5C"])(
    "%s (no page has a backslash) is a 404, logged in one line",
    async (path) => {
      const from = relay.app.output().length;
      const answer = await raw("GET", path, host());
      expect(answer.status).toBe(404);
      await vi.waitFor(
        () => expect(relay.app.output().slice(from)).toContain('"reason":"backslash_path"'),
        10_000,
      );
      expect(relay.app.output().slice(from)).not.toMatch(/Error|\n\s+at /);
    },
  );
});

describe("legacy data requests", () => {
  // Single fetch never sends ?_data; Remix answered it and logged a warning with a stack each time.
  it.each(["/?_data=root", "/?_data=routes%2F_index", "/_root.data?_data=root"])(
    "%s with a cookie is refused in one line, no stack",
    async (path) => {
      const from = relay.app.output().length;
      const answer = await raw("GET", path, { Host: `127.0.0.1:${relay.app.port}`, Cookie: "theme=dark" });
      expect(answer.status).toBe(400);
      await vi.waitFor(
        () => expect(relay.app.output().slice(from)).toContain('"reason":"data_query"'),
        10_000,
      );
      expect(relay.app.output().slice(from)).not.toMatch(/Error|\n\s+at /);
    },
  );
});

describe("routes that take no such request", () => {
  // These once gave "Unexpected Application Error!" and a stack in the log for each.
  it.each(["/", "/?Index", "/_root.data"])(
    "POST %s is a 405 page that says so, and logs no error",
    async (path) => {
      const from = relay.app.output().length;
      const answer = await raw("POST", path, formHeaders({ Host: `127.0.0.1:${relay.app.port}` }), FORM);
      expect(answer.status).toBe(405);
      if (!path.endsWith(".data")) {
        expect(answer.body).toContain("<title>405 Method Not Allowed</title>");
        expect(answer.body).not.toContain("Unexpected Application Error");
      }
      // A request after it, once logged, marks that all this one logs is written.
      const after = `/healthz?after=${encodeURIComponent(path)}`;
      expect((await raw("GET", after, { Host: `127.0.0.1:${relay.app.port}` })).status).toBe(200);
      await expect
        .poll(() => relay.app.output().slice(from), { timeout: 10_000 })
        .toContain(`GET ${after} 200`);
      const log = relay.app.output().slice(from);
      expect(log).not.toMatch(/Error:|\n\s+at /);
      expect(relay.fake.requests).toHaveLength(0);
    },
  );
});

describe("Origin and Host", () => {
  const site = "portfolio.example";

  it("a post from another site is refused with 403, and its text is not put into the page", async () => {
    const answer = await raw(
      "POST",
      "/?index",
      formHeaders({ Host: site, Origin: "https://evil.example" }),
      FORM,
    );
    expect(answer.status).toBe(403);
    expect(answer.body).toContain("Error Sending Message");
    // The other site's text would show as the visitor's own, pre-filled in our form.
    expect(answer.body).not.toContain(VALID.subject);
    expect(answer.body).not.toContain("analytical engine");
    expect(relay.fake.requests).toHaveLength(0);
  });

  it("with JavaScript, the refusal is data saying why", async () => {
    const answer = await raw(
      "POST",
      "/_root.data?index",
      formHeaders({ Host: site, Origin: "https://evil.example" }),
      FORM,
    );
    expect(answer.status).toBe(403);
    expect(answer.body).toContain("cross_site");
    expect(relay.fake.requests).toHaveLength(0);
  });

  it.each([
    ["two Origin headers", { Host: site, Origin: [`https://${site}`, "https://evil.example"] }],
    ['Origin "null" (a sandboxed frame)', { Host: site, Origin: "null" }],
    ["an Origin that is no origin", { Host: site, Origin: `https://${site}/path` }],
    // The scheme is part of the origin: anyone on the network can write the page of http://site.
    [
      "the same host over HTTP, posting to the HTTPS site",
      { Host: site, "X-Forwarded-Proto": "https", Origin: `http://${site}` },
    ],
    ["the same host over HTTPS, posting to the plain-HTTP site", { Host: site, Origin: `https://${site}` }],
  ])("%s counts as another site (403, not 500)", async (_name, headers) => {
    const answer = await raw("POST", "/?index", formHeaders(headers), FORM);
    expect(answer.status).toBe(403);
    expect(relay.fake.requests).toHaveLength(0);
  });

  it.each([
    ["the same host", { Host: site, "X-Forwarded-Proto": "https", Origin: `https://${site}` }],
    ["the same host over plain HTTP", { Host: site, Origin: `http://${site}` }],
    [
      "a Host with the default port",
      { Host: `${site}:443`, "X-Forwarded-Proto": "https", Origin: `https://${site}` },
    ],
    ["a Host with HTTP's default port", { Host: `${site}:80`, Origin: `http://${site}` }],
    [
      "an uppercase Host",
      { Host: site.toUpperCase(), "X-Forwarded-Proto": "https", Origin: `https://${site}` },
    ],
    [
      "a proxy that rewrote Host and said so in X-Forwarded-Host",
      { Host: "app:3000", "X-Forwarded-Host": site, "X-Forwarded-Proto": "https", Origin: `https://${site}` },
    ],
  ])("%s is the same site: the message is sent (303)", async (_name, headers) => {
    const answer = await raw("POST", "/?index", formHeaders(headers), FORM);
    expect(answer.status).toBe(303);
    expect(relay.fake.requests).toHaveLength(1);
  });
});

describe("the theme action", () => {
  it("refuses a post from another site with 403 and a clear message, and sets no cookie", async () => {
    const answer = await raw(
      "POST",
      "/action/set-theme",
      formHeaders({ Host: "portfolio.example", Origin: "https://evil.example" }),
      "theme=light&redirectTo=/",
    );
    expect(answer.status).toBe(403);
    expect(answer.body).toContain("another site");
    expect(answer.headers["set-cookie"]).toBeUndefined();
  });

  it("takes the same site's post", async () => {
    const answer = await raw(
      "POST",
      "/action/set-theme",
      formHeaders({
        Host: "portfolio.example",
        "X-Forwarded-Proto": "https",
        Origin: "https://portfolio.example",
      }),
      "theme=light&redirectTo=/",
    );
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe("/");
  });
});

describe("bodies", () => {
  it("a chunked body over 64 KiB gets its 413 answer, not a reset connection", async () => {
    const body = `message=${"a".repeat(70 * 1024)}`;
    const answer = await raw(
      "POST",
      "/?index",
      formHeaders({ Host: `127.0.0.1:${relay.app.port}`, "Transfer-Encoding": "chunked" }),
      body,
    );
    expect(answer.status).toBe(413);
    // The page a browser without JavaScript shows says what is wrong and the limit.
    expect(answer.body).toContain("Your message is too long: it may have at most 5,000 characters.");
    expect(relay.fake.requests).toHaveLength(0);
  });
});

describe("the log", () => {
  it("has no stack trace for anything a client caused", async () => {
    const from = relay.app.output().length;
    await raw("TRACE", "/", { Host: `127.0.0.1:${relay.app.port}` });
    await raw("GET", "/%zz", { Host: `127.0.0.1:${relay.app.port}` });
    await raw(
      "POST",
      "/?index",
      formHeaders({ Host: "portfolio.example", Origin: "https://evil.example" }),
      FORM,
    );
    // A line may reach the pipe after its response: wait for the last one.
    await vi.waitFor(() => expect(relay.app.output().slice(from)).toContain('"reason":"cross_site"'), 10_000);
    const log = relay.app.output().slice(from);
    expect(log).not.toMatch(/\n\s+at /);
    expect(log).not.toMatch(/Error:/);
    expect(log).toContain('"reason":"method_not_allowed"');
    expect(log).toContain('"reason":"malformed_url"');
  });
});
