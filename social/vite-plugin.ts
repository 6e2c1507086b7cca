import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Plugin } from "vite";
import { site } from "../app/content/site";
import { ICON_SPECS, renderIcon } from "./icons";
import { PREVIEW_HEIGHT, PREVIEW_WIDTH, previewAlt, renderPreviewImage } from "./preview-image";
import type { ManifestIcon, PreviewImage, ThemeColors } from "virtual:social-assets";
import { readThemeColors } from "./theme-colors";

const MODULE_ID = "virtual:social-assets";
const RESOLVED_ID = `\0${MODULE_ID}`;

const source = (path: string) => new URL(`../${path}`, import.meta.url).pathname;
const SOURCES = {
  stylesheet: source("app/tailwind.css"),
  favicon: source("public/favicon.svg"),
  fontRegular: source("social/fonts/Inter-Regular.otf"),
  fontBold: source("social/fonts/Inter-Bold.otf"),
};

/** Draws the social preview and the icons at build time as hashed files (decision 017). */
export function socialAssets(): Plugin {
  let isBuild = false;
  const served = new Map<string, Buffer>();

  return {
    name: "social-assets",
    configResolved(config) {
      isBuild = config.command === "build";
    },
    resolveId(id) {
      return id === MODULE_ID ? RESOLVED_ID : undefined;
    },
    async load(id, options) {
      if (id !== RESOLVED_ID) return;
      for (const path of Object.values(SOURCES)) this.addWatchFile(path);
      const { files, assets } = await generate();
      for (const [url, png] of files) {
        // The client build writes the files; the server build only needs their URLs.
        if (isBuild && !options?.ssr) this.emitFile({ type: "asset", fileName: url.slice(1), source: png });
        if (!isBuild) served.set(url, png);
      }
      return Object.entries(assets)
        .map(([name, value]) => `export const ${name} = ${JSON.stringify(value)};`)
        .join("\n");
    },
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const png = served.get(request.url?.split("?")[0] ?? "");
        if (!png) return next();
        response.setHeader("Content-Type", "image/png");
        response.end(png);
      });
    },
  };
}

async function generate() {
  const colors = readThemeColors(readFileSync(SOURCES.stylesheet, "utf8"));
  const favicon = readFileSync(SOURCES.favicon, "utf8");
  const files = new Map<string, Buffer>();
  const emit = (name: string, png: Buffer) => {
    const url = `/assets/${name}-${createHash("sha256").update(png).digest("hex").slice(0, 12)}.png`;
    files.set(url, png);
    return url;
  };

  const preview = await renderPreviewImage(site, colors.dark, {
    regular: readFileSync(SOURCES.fontRegular),
    bold: readFileSync(SOURCES.fontBold),
  });
  const icons = ICON_SPECS.map((spec) => ({
    ...spec,
    url: emit(spec.name, renderIcon(favicon, spec, [SOURCES.fontBold])),
  }));
  const previewImage: PreviewImage = {
    url: emit("social-preview", preview),
    width: PREVIEW_WIDTH,
    height: PREVIEW_HEIGHT,
    alt: previewAlt(site),
  };
  const manifestIcons: ManifestIcon[] = icons.flatMap(({ url, size, purpose }) =>
    purpose === "apple-touch" ? [] : [{ src: url, sizes: `${size}x${size}`, type: "image/png", purpose }],
  );
  const themeColors: ThemeColors = { light: colors.light.background, dark: colors.dark.background };
  const appleTouchIcon = icons.find((icon) => icon.purpose === "apple-touch")!.url;
  const assets = { previewImage, manifestIcons, appleTouchIcon, themeColors };
  return { files, assets };
}
