/** Shared by the pre-paint script and the toggle: the localStorage key. */
export const THEME_STORAGE_KEY = "theme";
export type ThemeName = "light" | "dark";
export const SET_THEME_ACTION = "/action/set-theme";

export function currentDocumentTheme(): ThemeName {
  return document.documentElement.classList.contains("light") ? "light" : "dark";
}
