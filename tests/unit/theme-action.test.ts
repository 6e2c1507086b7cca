// The theme action called with real Requests: what a form post, the toggle's
// background post and bad input each get back.
import { createCookieSessionStorage } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { action } from "~/routes/action.set-theme";
import { getStoredTheme } from "~/theme/session.server";
import { OFF_SITE_REDIRECTS } from "../support/off-site-redirects";

const URL_BASE = "http://localhost/action/set-theme";

function post(body: BodyInit, headers: Record<string, string> = {}, url = URL_BASE) {
  const request = new Request(url, { method: "POST", body, headers });
  return action({ request, params: {}, context: {} });
}

function cookieTheme(response: Response) {
  const cookie = response.headers.get("set-cookie") ?? "";
  // The session cookie is signed base64 JSON: decode its value part.
  const value = decodeURIComponent(cookie.split(";")[0]!.split("=").slice(1).join("="));
  return JSON.parse(Buffer.from(value.split(".")[0]!, "base64").toString()).theme as string;
}

describe("POST /action/set-theme", () => {
  it("stores the toggle's choice and answers 204", async () => {
    const response = await post(new URLSearchParams({ theme: "light" }));
    expect(response.status).toBe(204);
    expect(cookieTheme(response)).toBe("light");
  });

  it("without a theme (no-JS form) flips the stored one and sends the visitor back with 303", async () => {
    const first = await post(new URLSearchParams({ redirectTo: "/?a=1" }));
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/?a=1");
    expect(cookieTheme(first)).toBe("light"); // from the dark default

    const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
    const second = await post(new URLSearchParams({ redirectTo: "/" }), { cookie });
    expect(cookieTheme(second)).toBe("dark");
  });

  it("keeps the query of the page it came from, read from the Referer (the page posts its path only)", async () => {
    const back = (redirectTo: string, referer: string) =>
      post(new URLSearchParams({ redirectTo }), { referer }).then((r) => r.headers.get("location"));
    expect(await back("/", "http://localhost/?from=test")).toBe("/?from=test");
    expect(await back("/", "https://other.example/?from=test")).toBe("/?from=test");
    expect(await back("/", "http://localhost/elsewhere?from=test")).toBe("/");
    expect(await back("/", "not a url")).toBe("/");
  });

  it("never redirects off the site", async () => {
    const response = await post(new URLSearchParams({ redirectTo: "//evil.example/" }));
    expect(response.headers.get("location")).toBe("/");
  });

  // Dot segments before "//" once led off the site, and
  // values that are no URL threw (a 500 with a stack trace).
  it.each(OFF_SITE_REDIRECTS)("sends %s back to / with 303", async (redirectTo) => {
    const response = await post(new URLSearchParams({ theme: "dark", redirectTo }));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
  });

  it("marks the cookie Secure when the request came over HTTPS, and only then", async () => {
    const body = () => new URLSearchParams({ theme: "light" });
    const secure = await post(body(), {}, "https://me.example/action/set-theme");
    expect(secure.headers.get("set-cookie")).toMatch(/; HttpOnly; Secure; SameSite=Lax$/);
    expect((await post(body())).headers.get("set-cookie")).not.toMatch(/Secure/);
  });

  // The cookie was once signed with a constant written in the code.
  it("reads a cookie signed with the old built-in constant as no theme", async () => {
    const old = createCookieSessionStorage({
      cookie: { name: "theme", secrets: ["portfolio-theme-cookie"] },
    });
    const session = await old.getSession();
    session.set("theme", "light");
    const cookie = (await old.commitSession(session)).split(";")[0]!;
    const request = new Request("http://localhost/", { headers: { cookie } });
    expect(await getStoredTheme(request)).toBeNull();
    // ...while the action's own cookie reads back.
    const own = (await post(new URLSearchParams({ theme: "light" }))).headers
      .get("set-cookie")!
      .split(";")[0]!;
    expect(await getStoredTheme(new Request("http://localhost/", { headers: { cookie: own } }))).toBe(
      "light",
    );
  });

  it("refuses what is not a form post with 415", async () => {
    const response = await post(JSON.stringify({ theme: "light" }), { "content-type": "application/json" });
    expect(response.status).toBe(415);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a body over 1 KiB with 413, even without a Content-Length", async () => {
    const big = new URLSearchParams({ theme: "light", padding: "x".repeat(2048) }).toString();
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const request = new Request(URL_BASE, {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      duplex: "half",
    } as RequestInit);
    const response = await action({ request, params: {}, context: {} });
    expect(response.status).toBe(413);
    expect(response.headers.get("set-cookie")).toBeNull();
  });
});
