/** What social/vite-plugin.ts generates at build time. */
declare module "virtual:social-assets" {
  export type PreviewImage = { url: string; width: number; height: number; alt: string };
  export type ManifestIcon = { src: string; sizes: string; type: "image/png"; purpose: "any" | "maskable" };
  /** Each theme's page background, for `theme-color` and the manifest. */
  export type ThemeColors = { light: string; dark: string };

  export const previewImage: PreviewImage;
  export const manifestIcons: ManifestIcon[];
  export const appleTouchIcon: string;
  export const themeColors: ThemeColors;
}
