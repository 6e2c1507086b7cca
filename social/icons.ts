import { Resvg } from "@resvg/resvg-js";

export type IconPurpose = "any" | "maskable";
export type IconSpec = { name: string; size: number; purpose: IconPurpose | "apple-touch" };

export const ICON_SPECS: readonly IconSpec[] = [
  { name: "icon-192", size: 192, purpose: "any" },
  { name: "icon-512", size: 512, purpose: "any" },
  { name: "icon-maskable-512", size: 512, purpose: "maskable" },
  { name: "apple-touch-icon", size: 180, purpose: "apple-touch" },
];

/** Maskable icons keep what matters inside the central 80% circle. */
const MASKABLE_SCALE = 0.8;

// Maskable and apple-touch icons must be opaque to the edge (platforms cut their own shape; iOS
// shows transparency as black), so the favicon is laid on a square of its edge colour.
export function renderIcon(faviconSvg: string, spec: IconSpec, fontFiles: string[]): Buffer {
  if (spec.purpose === "any") return rasterise(faviconSvg, spec.size, fontFiles);
  const { attributes, body } = splitSvg(faviconSvg);
  const background = edgeColour(faviconSvg, fontFiles);
  const inner = spec.purpose === "maskable" ? spec.size * MASKABLE_SCALE : spec.size;
  const offset = (spec.size - inner) / 2;
  const viewBox = /\bviewBox="([^"]+)"/.exec(attributes)?.[1];
  if (!viewBox) throw new Error("public/favicon.svg: the root <svg> needs a viewBox");
  const composed =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${spec.size}" height="${spec.size}">` +
    `<rect width="100%" height="100%" fill="${background}"/>` +
    `<svg x="${offset}" y="${offset}" width="${inner}" height="${inner}" viewBox="${viewBox}">${body}</svg></svg>`;
  return rasterise(composed, spec.size, fontFiles);
}

function rasterise(svg: string, size: number, fontFiles: string[]) {
  // Only the committed font: the icons must not depend on the build machine's fonts.
  const resvg = new Resvg(svg, {
    fitTo: { mode: "width", value: size },
    font: {
      loadSystemFonts: false,
      fontFiles,
      defaultFontFamily: "Inter",
      sansSerifFamily: "Inter",
    },
  });
  return resvg.render().asPng();
}

function splitSvg(svg: string) {
  const match = /<svg\b([^>]*)>([\s\S]*)<\/svg>\s*$/.exec(svg.trim());
  if (!match) throw new Error("public/favicon.svg: not an <svg> document");
  return { attributes: match[1]!, body: match[2]! };
}

/** The favicon's colour at the middle of its top edge, just inside: what it is filled with. */
function edgeColour(faviconSvg: string, fontFiles: string[]) {
  const size = 64;
  const image = new Resvg(faviconSvg, {
    fitTo: { mode: "width", value: size },
    font: { loadSystemFonts: false, fontFiles },
  }).render();
  const at = (2 * size + size / 2) * 4;
  const [r, g, b, a] = image.pixels.subarray(at, at + 4);
  if (!a) throw new Error("public/favicon.svg: transparent at the top edge; cannot fill around it");
  return `#${[r, g, b].map((c) => c!.toString(16).padStart(2, "0")).join("")}`;
}
