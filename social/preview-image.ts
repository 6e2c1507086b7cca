import { Resvg } from "@resvg/resvg-js";
import { createElement, type CSSProperties, type ReactElement } from "react";
import satori from "satori";
import type { SiteContent } from "../app/content/site";
import type { Palette } from "./theme-colors";

/** The size Open Graph and X's large card both expect (1.91:1). */
export const PREVIEW_WIDTH = 1200;
export const PREVIEW_HEIGHT = 630;

export type PreviewFonts = { regular: Buffer; bold: Buffer };

export function previewAlt(site: SiteContent) {
  return `${site.name}, ${site.role}: ${site.tagline}`;
}

/** Name, role and intro line on the dark theme, laid out by satori as SVG and rasterised by resvg. */
export async function renderPreviewImage(site: SiteContent, palette: Palette, fonts: PreviewFonts) {
  const svg = await satori(previewElement(site, palette), {
    width: PREVIEW_WIDTH,
    height: PREVIEW_HEIGHT,
    fonts: [
      { name: "Inter", data: fonts.regular, weight: 400, style: "normal" },
      { name: "Inter", data: fonts.bold, weight: 700, style: "normal" },
    ],
  });
  // satori turns text into paths, so resvg needs no fonts of its own here.
  return new Resvg(svg, { font: { loadSystemFonts: false } }).render().asPng();
}

/** satori lays out flexbox only: every box is a flex container. */
function el(style: CSSProperties, ...children: (ReactElement | string)[]) {
  return createElement("div", { style: { display: "flex", ...style } }, ...children);
}

function previewElement(site: SiteContent, palette: Palette) {
  const initials = site.name
    .split(/\s+/)
    .map((part) => part[0])
    .join("");
  const host = new URL(site.siteUrl).host;
  return el(
    {
      width: PREVIEW_WIDTH,
      height: PREVIEW_HEIGHT,
      flexDirection: "column",
      justifyContent: "space-between",
      padding: "64px 80px 68px",
      boxSizing: "border-box",
      backgroundColor: palette.background,
      backgroundImage: `radial-gradient(ellipse at top left, ${palette.primary}33, transparent 60%)`,
      borderBottom: `12px solid ${palette.primary}`,
      fontFamily: "Inter",
      color: palette.foreground,
    },
    el(
      { alignItems: "center", gap: 24 },
      el(
        {
          width: 72,
          height: 72,
          alignItems: "center",
          justifyContent: "center",
          borderRadius: 16,
          backgroundColor: palette.primary,
          color: palette.primaryForeground,
          fontSize: 30,
          fontWeight: 700,
        },
        initials,
      ),
      el({ fontSize: 30, color: palette.mutedForeground }, host),
    ),
    el(
      { flexDirection: "column" },
      el({ fontSize: 80, fontWeight: 700, letterSpacing: -2, lineHeight: 1.05 }, site.name),
      el({ marginTop: 18, fontSize: 40, fontWeight: 700, color: palette.primary }, site.role),
      el(
        {
          marginTop: 28,
          width: 1000,
          fontSize: 30,
          lineHeight: 1.4,
          color: palette.mutedForeground,
          // A long intro is cut at three lines rather than pushed off the card.
          display: "block",
          lineClamp: 3,
        },
        site.tagline,
      ),
    ),
  );
}
