// The theme action called with real Requests: what a form post, the toggle's
// background post and bad input each get back.
import { describe, expect, it } from "vitest";
import { action } from "~/routes/action.set-theme";

const URL_BASE = "http://localhost/action/set-theme";

function post(body: BodyInit, headers: Record<string, string> = {}) {
  const request = new Request(URL_BASE, { method: "POST", body, headers });
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

  it("never redirects off the site", async () => {
    const response = await post(new URLSearchParams({ redirectTo: "//evil.example/" }));
    expect(response.headers.get("location")).toBe("/");
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
