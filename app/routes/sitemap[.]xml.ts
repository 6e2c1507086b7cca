import { site } from "~/content/site";
import { staticText } from "~/lib/static-text.server";

export function loader() {
  const home = escapeXml(new URL("/", site.siteUrl).href);
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>${home}</loc></url>
</urlset>
`;
  return staticText(xml, "application/xml; charset=utf-8");
}

function escapeXml(text: string) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
