import { existsSync } from "node:fs";

/**
 * The browser for tests and benches: CHROME_PATH, else Debian's Chromium,
 * else undefined so Playwright uses its own download. Tests never download.
 */
export const systemChromium =
  process.env.CHROME_PATH ?? (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);

export const chromiumArgs = systemChromium
  ? [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ]
  : [];
