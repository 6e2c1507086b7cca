import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "~/lib/safe-redirect";

describe("safeRedirectPath", () => {
  it.each(["/", "/#projects", "/some/page?x=1", "/missing-page"])("keeps the same-site path %s", (path) => {
    expect(safeRedirectPath(path)).toBe(path);
  });

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

  it("returns the path as a browser would read it", () => {
    expect(safeRedirectPath("/a/../b?x=1#top")).toBe("/b?x=1#top");
  });

  it("falls back when the field is missing or a file", () => {
    expect(safeRedirectPath(null)).toBe("/");
    expect(safeRedirectPath(new File(["x"], "x.txt"))).toBe("/");
  });

  it("uses the given fallback", () => {
    expect(safeRedirectPath("//evil.example", "/home")).toBe("/home");
  });
});
