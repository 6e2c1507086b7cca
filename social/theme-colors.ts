// Each theme's colours, read from the HSL tokens in app/tailwind.css so that the generated images
// and the manifest follow a change of palette (decision 017).

export type Palette = {
  background: string;
  foreground: string;
  mutedForeground: string;
  primary: string;
  primaryForeground: string;
};
export type ThemeColors = { light: Palette; dark: Palette };

const TOKENS = {
  background: "--background",
  foreground: "--foreground",
  mutedForeground: "--muted-foreground",
  primary: "--primary",
  primaryForeground: "--primary-foreground",
} as const;

export function readThemeColors(css: string): ThemeColors {
  return { light: readPalette(css, ".light"), dark: readPalette(css, ".dark") };
}

function readPalette(css: string, selector: string): Palette {
  // The token blocks hold declarations only, so the first "}" closes them.
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`app/tailwind.css: no "${selector} {" block of theme tokens`);
  const block = css.slice(start, css.indexOf("}", start));
  const read = (token: string) => {
    const match = new RegExp(`${token}:\\s*([\\d.]+)\\s+([\\d.]+)%\\s+([\\d.]+)%\\s*;`).exec(block);
    if (!match) throw new Error(`app/tailwind.css: ${selector} has no HSL value for ${token}`);
    return hslToHex(Number(match[1]), Number(match[2]), Number(match[3]));
  };
  const entries = Object.entries(TOKENS).map(([key, token]) => [key, read(token)]);
  return Object.fromEntries(entries) as Palette;
}

export function hslToHex(hue: number, saturation: number, lightness: number): string {
  const s = saturation / 100;
  const l = lightness / 100;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, "0");
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}
