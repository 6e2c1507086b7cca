// Plain JS so that the TypeScript tests and the bench's .mjs share one copy.
import { existsSync } from "node:fs";

/**
 * The browser for tests and benches: CHROME_PATH, else Debian's Chromium,
 * else undefined so Playwright uses its own download. Tests never download.
 * @type {string | undefined}
 */
export const systemChromium =
  process.env.CHROME_PATH ?? (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);

/** Flags for a system Chromium on a machine with no outside network. */
export const systemChromiumFlags = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** Playwright's own browser needs none of them. */
export const chromiumArgs = systemChromium ? systemChromiumFlags : [];
