import { defineConfig, devices } from "@playwright/test";
import { chromiumArgs, systemChromium } from "./tests/support/chromium.mjs";

// Playwright evaluates this file again in every worker: the global setup
// starts the servers once and hands their addresses over in env variables.
const baseURL = process.env.E2E_BASE_URL ?? "http://127.0.0.1:0";

export default defineConfig({
  testDir: "tests/e2e",
  globalSetup: "./tests/e2e/global-setup.ts",
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 2,
  // A busy machine is slow, not wrong: tests wait on what they need, for longer than Playwright's default.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never" }]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    launchOptions: { executablePath: systemChromium, args: chromiumArgs },
  },
  projects: [
    {
      name: "chromium",
      testIgnore: /\.nojs\.spec\.ts$/,
      use: { ...devices["Desktop Chrome"], viewport: { width: 1366, height: 800 } },
    },
    {
      name: "no-js",
      testMatch: /\.nojs\.spec\.ts$/,
      use: { ...devices["Desktop Chrome"], viewport: { width: 1366, height: 800 }, javaScriptEnabled: false },
    },
  ],
});
