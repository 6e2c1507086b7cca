// How the page cache keys pages: by what a page reads (its path and its
// loader data), never by the query string, so random query strings neither
// cause renders nor add pages. tests/integration/html-cache.test.ts checks
// the cache through the production server.
import { gunzipSync } from "node:zlib";
import type { EntryContext } from "@remix-run/node";
import { describe, expect, it, vi } from "vitest";
import { servePage } from "~/html-cache/html-cache.server";

/** The part of Remix's entry context the cache reads. */
function context(loaderData: Record<string, unknown>) {
  return { staticHandlerContext: { loaderData, actionData: null, errors: null } } as unknown as EntryContext;
}

/** Serves the page, rendering it when it is not kept; `hit` says whether it was kept. */
async function serve(path: string, loaderData: Record<string, unknown>) {
  const nonce = crypto.randomUUID();
  const request = new Request(`http://localhost${path}`, { headers: { "Accept-Encoding": "identity" } });
  let hit = true;
  const response = await servePage(request, 200, new Headers(), context(loaderData), nonce, async () => {
    hit = false;
    return new Response(`<html><script nonce="${nonce}"></script>${path}</html>`, { status: 200 });
  });
  return { hit, html: await response.text(), nonce };
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

describe("page cache size", () => {
  it("drops the least recently used page, so a page in use outlives a run of new ones", async () => {
    const busy = { root: { theme: "busy" } };
    expect((await serve("/busy", busy)).hit).toBe(false);
    // More new pages than the cache holds (32), the busy page asked for between them.
    for (let i = 0; i < 40; i++) {
      expect((await serve(`/new-${i}`, busy)).hit).toBe(false);
      expect((await serve("/busy", busy)).hit, `after ${i + 1} new pages`).toBe(true);
    }
    expect((await serve("/new-0", busy)).hit).toBe(false);
  });
});

describe("refused posts: one template per shape, the typed text filled in", () => {
  /** A refused post's context: loader data, and action data with the typed text as `fields`. */
  function refusal(fields: Record<string, string>, fieldErrors: Record<string, string>) {
    return {
      staticHandlerContext: {
        loaderData: { root: { theme: "dark" } },
        actionData: {
          "routes/_index": { ok: false, status: 400, reason: "invalid_fields", fields, fieldErrors },
        },
        errors: null,
      },
    } as unknown as EntryContext;
  }

  type Refusal = { fields: Record<string, string>; fieldErrors: Record<string, string> };

  /** A form that writes its typed text where the contact form does, as React would escape it. */
  const form = (where: "value" | "style") => (context: EntryContext, nonce: string) => {
    const actionData = context.staticHandlerContext.actionData as Record<string, Refusal>;
    const { fields, fieldErrors } = actionData["routes/_index"]!;
    const escape = (v: string) =>
      v.replace(
        /[&<>"']/g,
        (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]!,
      );
    const message = (fields.message!.startsWith("\n") ? "\n" : "") + escape(fields.message!);
    const name =
      where === "value"
        ? `<input id="name" value="${escape(fields.name!)}"/>`
        : `<style>${fields.name}</style>`;
    return `<html><script nonce="${nonce}"></script><p>${fieldErrors.email}</p>${name}<textarea rows="5">${message}</textarea></html>`;
  };

  async function post(
    fields: Record<string, string>,
    fieldErrors: Record<string, string>,
    where: "value" | "style" = "value",
    encoding = "gzip",
  ) {
    const nonce = crypto.randomUUID();
    const request = new Request(`http://localhost/${where}?index`, {
      method: "POST",
      headers: { "Accept-Encoding": encoding },
    });
    let renders = 0;
    const response = await servePage(
      request,
      400,
      new Headers(),
      refusal(fields, fieldErrors),
      nonce,
      async (context) => {
        renders++;
        return new Response(form(where)(context, nonce), { status: 400 });
      },
    );
    const body = Buffer.from(await response.arrayBuffer());
    const html = (response.headers.get("Content-Encoding") === "gzip" ? gunzipSync(body) : body).toString();
    return {
      rendered: renders > 0,
      renders,
      html,
      expected: form(where)(refusal(fields, fieldErrors), nonce),
    };
  }

  it("renders a shape once, and gives every post its own typed text, escaped as at its spot", async () => {
    const invalid = { email: "Please enter a valid email address." };
    const first = await post({ name: "Ada", message: "Hi" }, invalid);
    expect(first.rendered).toBe(true);
    expect(first.html).toBe(first.expected);
    const posts: [Record<string, string>, string][] = [
      [{ name: `<b>"Ada" & 'Bob'</b>`, message: "\nfirst line\r\n</textarea>" }, "gzip"],
      [{ name: "", message: "" }, "gzip"],
      // Over one stored block (65,535 bytes) of the gzip stream.
      [{ name: "x".repeat(70_000), message: "\u2028\u0000é" }, "gzip"],
      [{ name: "Ada", message: "\nwithout gzip" }, "identity"],
    ];
    for (const [fields, encoding] of posts) {
      const again = await post(fields, invalid, "value", encoding);
      expect(again.rendered).toBe(false);
      expect(again.html).toBe(again.expected);
    }
    // Another field error is another shape.
    expect((await post({ name: "Ada", message: "Hi" }, { email: "Please enter your email." })).rendered).toBe(
      true,
    );
  });

  // Last: it turns templates off for this process.
  it("renders each post afresh once its typed text is somewhere it cannot fill in, and says so once", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    let renders = 0;
    for (const name of ["Ada", "Bob", "Cy"]) {
      const page = await post({ name, message: "Hi" }, { email: "x" }, "style");
      expect(page.html).toBe(page.expected);
      expect(page.rendered).toBe(true);
      renders += page.renders;
    }
    // The template, then one render per post: no template is tried again.
    expect(renders).toBe(4);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
