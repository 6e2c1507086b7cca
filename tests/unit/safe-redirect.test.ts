import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "~/theme/safe-redirect";

const SITE = "https://me.example";

describe("safeRedirectPath", () => {
  it.each(["/", "/#projects", "/some/page?x=1", "/missing-page", "/a//b", "/?next=//evil.example"])(
    "keeps the same-site path %s",
    (path) => {
      expect(safeRedirectPath(path)).toBe(path);
    },
  );

  it.each([
    ["protocol-relative", "//evil.example/phish"],
    ["absolute URL", "https://evil.example/"],
    ["backslash trick", "/\\evil.example"],
    ["tab trick", "/\t/evil.example"],
    ["newline trick", "/\n/evil.example"],
    ["backslash after a slash", "\\/evil.example"],
    ["relative path", "projects"],
    ["javascript URL", "javascript:alert(1)"],
    ["empty", ""],
  ])("falls back to / for a %s", (_kind, value) => {
    expect(safeRedirectPath(value)).toBe("/");
  });

  // A dot segment before "//" once resolved to "//evil.com".
  it.each([
    "/.//evil.com",
    "/a/..//evil.com",
    "/..//evil.com",
    "/./\\evil.com",
    "/.//.//evil.com",
    "/%2e//evil.com",
  ])("falls back to / when dot segments leave a protocol-relative path: %s", (value) => {
    expect(safeRedirectPath(value)).toBe("/");
  });

  // These once threw "TypeError: Invalid URL" (a 500).
  it.each(["//%25", "//%40evil.com", "//%zz", "/\\%", "/.//%zz"])(
    "falls back to / for the non-URL %s",
    (value) => {
      expect(safeRedirectPath(value)).toBe("/");
    },
  );

  it("returns the path as a browser would read it", () => {
    expect(safeRedirectPath("/a/../b?x=1#top")).toBe("/b?x=1#top");
  });

  it("falls back for anything that is not a string", () => {
    for (const value of [null, undefined, 42, {}, ["/"], new File(["x"], "x.txt")]) {
      expect(safeRedirectPath(value)).toBe("/");
    }
  });

  it("uses the given fallback", () => {
    expect(safeRedirectPath("//evil.example", "/home")).toBe("/home");
  });

  // Whatever comes in, what goes out stays on the site and means itself when
  // a browser resolves it against the page (the WHATWG URL parser is the browser's).
  const tricky = fc.string({
    unit: fc.constantFrom(
      "/",
      "\\",
      ".",
      "%",
      "2",
      "e",
      "5",
      "c",
      "f",
      "@",
      ":",
      "?",
      "#",
      "\t",
      "\n",
      " ",
      "a",
      "é",
    ),
    maxLength: 24,
  });
  const anyInput = fc.oneof(
    tricky,
    tricky.map((tail) => `/${tail}`),
    fc.string({ unit: "binary" }),
  );

  it("property: never throws, always a path on the same site that resolves to itself", () => {
    fc.assert(
      fc.property(anyInput, (value) => {
        const path = safeRedirectPath(value);
        expect(path.startsWith("/")).toBe(true);
        const url = new URL(path, `${SITE}/some/page`);
        expect(url.origin).toBe(SITE);
        expect(url.pathname + url.search + url.hash).toBe(path);
      }),
      { numRuns: 3000 },
    );
  });

  it("property: a plain same-site path is kept", () => {
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), (segments) => {
        const path = `/${segments.join("/")}`;
        expect(safeRedirectPath(path)).toBe(path);
      }),
    );
  });
});
