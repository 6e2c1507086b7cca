// The build-time generators behind the social preview and the install icons
// (social/): colours from the stylesheet, the preview from the content file,
// icons from the favicon.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { site } from "~/content/site";
import { ICON_SPECS, renderIcon } from "../../social/icons";
import { PREVIEW_HEIGHT, PREVIEW_WIDTH, renderPreviewImage } from "../../social/preview-image";
import { hslToHex, readThemeColors } from "../../social/theme-colors";
import { ROOT } from "../support/app-server";
import { decodePng } from "../support/png";

const css = readFileSync(`${ROOT}app/tailwind.css`, "utf8");
const favicon = readFileSync(`${ROOT}public/favicon.svg`, "utf8");
const fonts = {
  regular: readFileSync(`${ROOT}social/fonts/Inter-Regular.otf`),
  bold: readFileSync(`${ROOT}social/fonts/Inter-Bold.otf`),
};
const fontFiles = [`${ROOT}social/fonts/Inter-Bold.otf`];

describe("theme colours", () => {
  it("converts HSL to hex", () => {
    expect(hslToHex(0, 100, 50)).toBe("#ff0000");
    expect(hslToHex(120, 100, 25)).toBe("#008000");
    expect(hslToHex(0, 0, 100)).toBe("#ffffff");
    expect(hslToHex(240, 10, 4)).toBe("#09090b");
  });

  it("reads both palettes from app/tailwind.css", () => {
    const colours = readThemeColors(css);
    expect(colours.light.background).toBe("#ffffff");
    expect(colours.dark.background).toBe("#09090b");
    for (const palette of [colours.light, colours.dark]) {
      for (const value of Object.values(palette)) expect(value).toMatch(/^#[0-9a-f]{6}$/);
    }
    expect(colours.dark.primary).not.toBe(colours.light.primary);
  });

  it("names the missing token instead of drawing with a wrong colour", () => {
    expect(() => readThemeColors(css.replace(/--primary:[^;]+;/g, ""))).toThrow(/--primary/);
    expect(() => readThemeColors(".light { --background: 0 0% 100%; }")).toThrow(/\.light .*--foreground/);
  });
});

describe("social preview", () => {
  it("is a 1200x630 PNG that follows the content", async () => {
    const palette = readThemeColors(css).dark;
    const image = await renderPreviewImage(site, palette, fonts);
    expect(decodePng(image)).toEqual({ width: PREVIEW_WIDTH, height: PREVIEW_HEIGHT });
    // An edited content file draws a different image.
    const edited = await renderPreviewImage({ ...site, role: "Data Engineer" }, palette, fonts);
    expect(decodePng(edited)).toEqual({ width: 1200, height: 630 });
    expect(edited.equals(image)).toBe(false);
    // So does another accent colour.
    const recoloured = await renderPreviewImage(site, { ...palette, primary: "#ff0000" }, fonts);
    expect(recoloured.equals(image)).toBe(false);
  }, 30_000);
});

describe("icons from the favicon", () => {
  it("renders each at its size", () => {
    const sizes = ICON_SPECS.map((spec) => [spec.name, decodePng(renderIcon(favicon, spec, fontFiles))]);
    expect(Object.fromEntries(sizes)).toEqual({
      "icon-192": { width: 192, height: 192 },
      "icon-512": { width: 512, height: 512 },
      "icon-maskable-512": { width: 512, height: 512 },
      "apple-touch-icon": { width: 180, height: 180 },
    });
  });

  it("refuses to fill around a favicon it cannot read an edge colour from", () => {
    const hollow =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="4"/></svg>';
    const maskable = ICON_SPECS.find((spec) => spec.purpose === "maskable")!;
    expect(() => renderIcon(hollow, maskable, fontFiles)).toThrow(/transparent at the top edge/);
    expect(() => renderIcon("<svg></svg>", maskable, fontFiles)).toThrow();
  });
});
