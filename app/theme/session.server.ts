import { createCookieSessionStorage } from "@remix-run/node";
import { createThemeSessionResolver, isTheme } from "remix-themes";
import type { ThemeName } from "~/lib/theme";

// The theme is not sensitive; the cookie is signed only because Remix warns
// about unsigned session cookies. This value is not a secret.
const themeStorage = createCookieSessionStorage({
  cookie: {
    name: "theme",
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    maxAge: 60 * 60 * 24 * 365,
    secrets: ["portfolio-theme-cookie"],
  },
});

export const themeSessionResolver = createThemeSessionResolver(themeStorage);

/** The stored theme, or null when the visitor never chose one. */
export async function getStoredTheme(request: Request): Promise<ThemeName | null> {
  return parseThemeName((await themeSessionResolver(request)).getTheme());
}

/** A theme name from untrusted input (a form field, a cookie), or null. */
export function parseThemeName(value: unknown): ThemeName | null {
  return isTheme(value) ? (value as ThemeName) : null;
}
