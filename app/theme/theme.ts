// What the server and the browser agree on about the theme; no remix-themes, as this reaches the browser.

export type ThemeName = "light" | "dark";

export const DEFAULT_THEME: ThemeName = "dark";

export const THEME_STORAGE_KEY = "theme";

export const SET_THEME_ACTION = "/action/set-theme";

export function currentDocumentTheme(): ThemeName {
  return document.documentElement.classList.contains("light") ? "light" : "dark";
}
