import { manifestIcons, themeColors } from "virtual:social-assets";
import { site } from "~/content/site";
import { staticText } from "~/lib/static-text.server";

/** The web app manifest; its icons are drawn from the favicon at build time. */
export function loader() {
  const manifest = {
    id: "/",
    name: `${site.name} — ${site.role}`,
    short_name: site.name,
    description: site.description,
    start_url: "/",
    scope: "/",
    display: "standalone",
    theme_color: themeColors.dark,
    background_color: themeColors.dark,
    icons: manifestIcons,
  };
  return staticText(JSON.stringify(manifest, null, 2), "application/manifest+json");
}
