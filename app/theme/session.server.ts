// The theme cookie through remix-themes, signed so it holds only the two values this site writes.
import { createCookieSessionStorage } from "@remix-run/node";
import { createThemeSessionResolver, isTheme, Theme } from "remix-themes";
import { config } from "~/config.server";
import { cameOverHttps } from "~/lib/https.server";
import type { ThemeName } from "./theme";

function resolver(secure: boolean) {
  return createThemeSessionResolver(
    createCookieSessionStorage({
      cookie: {
        name: "theme",
        path: "/",
        httpOnly: true,
        sameSite: "lax",
        secure,
        maxAge: 60 * 60 * 24 * 365,
        secrets: [config.sessionSecret],
      },
    }),
  );
}

// remix-themes commits without per-call cookie options, so Secure is chosen by picking the storage.
const overHttps = resolver(true);
const overHttp = resolver(false);

export function themeSession(request: Request) {
  return (cameOverHttps(request) ? overHttps : overHttp)(request);
}

export async function getStoredTheme(request: Request): Promise<ThemeName | null> {
  return (await themeSession(request)).getTheme();
}

export function parseTheme(value: unknown): Theme | null {
  return isTheme(value) ? value : null;
}

export { Theme };
