import { useLocation, useRouteLoaderData } from "@remix-run/react";
import type { FormEvent } from "react";
import { memo, useEffect } from "react";
import { buttonClass } from "~/components/ui/button";
import { MoonIcon, SunIcon } from "~/components/ui/icons";
import { Tooltip } from "~/components/ui/tooltip";
import type { loader as rootLoader } from "~/root";
import { currentDocumentTheme, SET_THEME_ACTION, THEME_STORAGE_KEY, type ThemeName } from "./theme";

function storeLocally(theme: ThemeName) {
  try {
    localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Storage can be disabled; the cookie still keeps the choice.
  }
}

function saveTheme(theme: ThemeName) {
  storeLocally(theme);
  fetch(SET_THEME_ACTION, { method: "POST", body: new URLSearchParams({ theme }) }).catch(() => {
    // Offline: the page and localStorage already show the choice; the next toggle retries the cookie.
  });
}

function storedTheme() {
  try {
    return localStorage.getItem(THEME_STORAGE_KEY);
  } catch {
    return null;
  }
}

// Icon and label follow the <html> class through CSS: the server cannot know a localStorage-only theme.
// Memoised: the header's menu state must not re-render its tooltip before that hydrates (decision 061).
export const ThemeToggle = memo(function ThemeToggle() {
  // Pages never read the query string (decision 015).
  const { pathname } = useLocation();
  const serverTheme = useRouteLoaderData<typeof rootLoader>("root")?.theme;

  useEffect(() => {
    // Kept for the pre-paint script too, should a CDN ignore Vary (docs/deploy.md).
    if (serverTheme) storeLocally(serverTheme);
    else if (storedTheme()) saveTheme(currentDocumentTheme());
  }, [serverTheme]);

  function toggle(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const next: ThemeName = currentDocumentTheme() === "dark" ? "light" : "dark";
    const root = document.documentElement;
    root.classList.remove("light", "dark");
    root.classList.add(next);
    saveTheme(next);
  }

  const label = (
    <>
      <span className="hidden dark:inline">Switch to light theme</span>
      <span className="dark:hidden">Switch to dark theme</span>
    </>
  );

  return (
    <form method="post" action={SET_THEME_ACTION} onSubmit={toggle}>
      <input type="hidden" name="redirectTo" value={pathname} />
      <Tooltip content={label}>
        <button type="submit" className={buttonClass("ghost", "icon")}>
          <SunIcon data-icon="sun" className="hidden dark:block" />
          <MoonIcon data-icon="moon" className="dark:hidden" />
          <span className="sr-only">{label}</span>
        </button>
      </Tooltip>
    </form>
  );
});
