// Security headers on every kind of response the production server gives:
// pages (200, 404, a refused no-JS post), single-fetch data (loader and
// action), resource routes (health, theme), files from disk, and the server's
// own refusals. The contact action runs in relay mode against the HTTP relay.fake.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startAppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, relayEnv, postForm } from "../support/contact";
import { useRelayServer } from "../support/relay-server";

const relay = useRelayServer({ CONTACT_RATE_LIMIT_MAX: "1000", TRUST_PROXY: "1" });

/** CSP directives by name; values as a list of sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name!.toLowerCase(), sources]),
  );
}

/** The headers every response carries, whatever it is. */
function expectCommonHeaders(response: Response) {
  const h = response.headers;
  expect(h.get("X-Content-Type-Options")).toBe("nosniff");
  expect(h.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
  const permissions = h.get("Permissions-Policy") ?? "";
  for (const feature of ["camera", "microphone", "geolocation", "payment", "usb"]) {
    expect(permissions).toContain(`${feature}=()`);
  }
  expect(h.get("Cross-Origin-Opener-Policy")).toBe("same-origin");
  // Every request here came "over HTTPS" through the trusted proxy.
  const hsts = /max-age=(\d+)/.exec(h.get("Strict-Transport-Security") ?? "");
  expect(Number(hsts?.[1])).toBeGreaterThanOrEqual(31_536_000);
  // Enforced, not merely reported.
  expect(h.get("Content-Security-Policy-Report-Only")).toBeNull();
}

/**
 * A page: the enforced strict policy, listing the SHA-256 of each inline
 * script the page runs, and no nonce anywhere. Returns the policy.
 */
async function expectDocumentHeaders(response: Response): Promise<string> {
  expectCommonHeaders(response);
  expect(response.headers.get("Content-Type")).toMatch(/^text\/html/);
  const csp = directives(response.headers.get("Content-Security-Policy") ?? "");
  expect(csp.get("default-src")).toEqual(["'self'"]);
  const scripts = csp.get("script-src") ?? [];
  expect(scripts).toContain("'strict-dynamic'");
  expect(scripts).not.toContain("'unsafe-inline'");
  expect(scripts).not.toContain("'unsafe-eval'");
  expect(csp.get("object-src")).toEqual(["'none'"]);
  expect(csp.get("base-uri")).toEqual(["'none'"]);
  expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
  expect(csp.get("form-action")).toEqual(["'self'"]);

  expect(scripts.some((source) => source.startsWith("'nonce-"))).toBe(false);

  const html = await response.text();
  expect(html).not.toMatch(/\bnonce=/);
  // Each inline script that runs (JSON-LD does not) is listed by its hash, and nothing else is.
  const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    .filter(([, attributes]) => !/\bsrc=|type="application\/ld\+json"/.test(attributes!))
    .map(([, , text]) => `'sha256-${createHash("sha256").update(text!).digest("base64")}'`);
  expect(inline.length).toBeGreaterThan(2);
  expect(new Set(scripts.filter((source) => source.startsWith("'sha256-")))).toEqual(new Set(inline));
  return response.headers.get("Content-Security-Policy")!;
}

/** Data, JSON, redirects, empty answers: the locked-down policy. */
function expectNonDocumentHeaders(response: Response) {
  expectCommonHeaders(response);
  const csp = directives(response.headers.get("Content-Security-Policy") ?? "");
  expect(csp.get("default-src")).toEqual(["'none'"]);
  expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
}

/** What a browser's request looks like after a TLS-terminating proxy (TRUST_PROXY=1). */
const VIA_PROXY = { ...BROWSER_HEADERS, "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9" };

const get = (path: string, headers: Record<string, string> = VIA_PROXY) =>
  fetch(`${relay.app.url}${path}`, { headers, redirect: "manual" });
const post = (path: string, values: Record<string, string>) =>
  postForm(`${relay.app.url}${path}`, values, VIA_PROXY);

describe("pages", () => {
  it("/ has every header, the same policy on every response", async () => {
    const first = await get("/");
    expect(first.status).toBe(200);
    const policy = await expectDocumentHeaders(first);
    expect(await expectDocumentHeaders(await get("/"))).toBe(policy);
  });

  it("the 404 page has every header", async () => {
    const response = await get("/no-such-page");
    expect(response.status).toBe(404);
    await expectDocumentHeaders(response);
  });

  it("a no-JS contact post that is refused (page re-rendered with the errors) has every header", async () => {
    const response = await post("/?index", { ...VALID, email: "not-an-address" });
    expect(response.status).toBe(400);
    await expectDocumentHeaders(response);
  });

  it("a no-JS contact post that is sent (redirect back to the page) has every header", async () => {
    const response = await post("/?index", VALID);
    expect(response.status).toBe(303);
    expectNonDocumentHeaders(response);
  });
});

describe("single-fetch data, as the page's JavaScript asks for it", () => {
  it("loader data has every header", async () => {
    const response = await get("/_root.data");
    expect(response.status).toBe(200);
    expectNonDocumentHeaders(response);
  });

  it("the contact action's answers (sent, refused) have every header", async () => {
    const sent = await post("/_root.data?index", VALID);
    // Single fetch answers an action's redirect with 202 and the target in the body.
    expect(sent.status).toBe(202);
    expectNonDocumentHeaders(sent);
    const refused = await post("/_root.data?index", { ...VALID, email: "not-an-address" });
    expect(refused.status).toBe(400);
    expectNonDocumentHeaders(refused);
  });
});

describe("resource routes (Remix gives them no entry hook)", () => {
  it("/healthz has every header", async () => {
    const response = await get("/healthz");
    expect(response.status).toBe(200);
    expectNonDocumentHeaders(response);
  });

  it("the theme action has every header, with JS (204) and without (redirect), and on GET", async () => {
    const withJs = await post("/action/set-theme", { theme: "light" });
    expect(withJs.status).toBe(204);
    expectNonDocumentHeaders(withJs);
    const withoutJs = await post("/action/set-theme", { redirectTo: "/" });
    expect(withoutJs.headers.get("Location")).toBe("/");
    expectNonDocumentHeaders(withoutJs);
    const refused = await fetch(`${relay.app.url}/action/set-theme`, {
      method: "POST",
      body: "{}",
      headers: { ...VIA_PROXY, "Content-Type": "application/json" },
    });
    expect(refused.status).toBe(415);
    expectNonDocumentHeaders(refused);
    const getIt = await get("/action/set-theme");
    expect(getIt.headers.get("Location")).toBe("/");
    expectNonDocumentHeaders(getIt);
  });
});

describe("everything else the server answers", () => {
  it("files from disk (a hashed asset, the favicon) have every header", async () => {
    const html = await (await get("/")).text();
    const stylesheet = /href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(stylesheet).toBeTruthy();
    for (const path of [stylesheet!, "/favicon.svg"]) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expectNonDocumentHeaders(response);
    }
  });

  it("the server's own refusals (405, 400) have every header", async () => {
    const method = await fetch(`${relay.app.url}/`, { method: "PUT", headers: VIA_PROXY });
    expect(method.status).toBe(405);
    expectNonDocumentHeaders(method);
    const url = await get("/%zz");
    expect(url.status).toBe(400);
    expectNonDocumentHeaders(url);
  });

  it("HSTS only when the request came over HTTPS: never over plain HTTP, nor on an untrusted claim", async () => {
    expect((await get("/healthz", BROWSER_HEADERS)).headers.get("Strict-Transport-Security")).toBeNull();
    const direct = await startAppServer({ env: relayEnv(relay.fake.url) });
    try {
      const claimed = await fetch(`${direct.url}/healthz`, { headers: VIA_PROXY });
      expect(claimed.headers.get("Strict-Transport-Security")).toBeNull();
    } finally {
      await direct.stop();
    }
  }, 60_000);
});
