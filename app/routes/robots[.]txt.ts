import { site } from "~/content/site";
import { staticText } from "~/lib/static-text.server";

export function loader() {
  const sitemap = new URL("/sitemap.xml", site.siteUrl).href;
  return staticText(`User-agent: *\nAllow: /\n\nSitemap: ${sitemap}\n`, "text/plain; charset=utf-8");
}
