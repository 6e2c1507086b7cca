// What the server and the browser agree on about the theme. No remix-themes
// here: this module reaches the browser, and remix-themes stays on the server.

export type ThemeName = "light" | "dark";

export const DEFAULT_THEME: ThemeName = "dark";

export const THEME_STORAGE_KEY = "theme";

export const SET_THEME_ACTION = "/action/set-theme";

export function currentDocumentTheme(): ThemeName {
  return document.documentElement.classList.contains("light") ? "light" : "dark";
}
