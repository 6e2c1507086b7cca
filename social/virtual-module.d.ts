/** What social/vite-plugin.ts generates at build time. */
declare module "virtual:social-assets" {
  /** The social preview: a content-hashed PNG under /assets/. */
  export type PreviewImage = { url: string; width: number; height: number; alt: string };
  /** One entry of the web app manifest's `icons`. */
  export type ManifestIcon = { src: string; sizes: string; type: "image/png"; purpose: "any" | "maskable" };
  /** Each theme's page background, for `theme-color` and the manifest. */
  export type ThemeColors = { light: string; dark: string };

  export const previewImage: PreviewImage;
  export const manifestIcons: ManifestIcon[];
  export const appleTouchIcon: string;
  export const themeColors: ThemeColors;
}
