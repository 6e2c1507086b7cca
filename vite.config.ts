import { vitePlugin as remix } from "@remix-run/dev";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vitest/config";
import remixOptions from "./remix.config.js";
import { socialAssets } from "./social/vite-plugin";

/** A flood of posts, 10,000 hostile requests, PostgreSQL stopped and started: each needs the machine to itself. */
const LOADS_THE_MACHINE = [
  "tests/integration/hostile-fuzz.test.ts",
  "tests/integration/contact-flood.test.ts",
  // Stops and starts PostgreSQL servers of its own.
  "tests/integration/store-faults-postgres.test.ts",
  "tests/integration/store-faults-postgres-pool.test.ts",
];

/** The browsers of Vite's default client target ("modules"), spelled out for the stylesheet of both builds. */
const BROWSERS = ["es2020", "edge88", "firefox78", "chrome87", "safari14"];

/** One PostgreSQL server for the integration tests of a run, after the run's temporary folder is made. */
const POSTGRES = "tests/support/postgres-server.ts";

export default defineConfig(({ isSsrBuild }) => ({
  // remix.config.js holds the Remix options; the Vite plugin only sees them here.
  // socialAssets draws the preview image and icons (social/vite-plugin.ts).
  plugins: [tailwindcss(), socialAssets(), !process.env.VITEST && remix(remixOptions)],
  resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
  // Not node_modules/.vite: node_modules may be shared between checkouts, or read-only.
  cacheDir: ".cache/vite",
  // The server (server/index.ts) gives everything in build/client a one-year immutable cache,
  // right only for hashed files; public/ stays out of it and is served from
  // public/ with a one-hour cache (the image copies public/).
  // The server build runs on the image's Node, which takes top-level await (the contact store opens at import).
  // Both builds write the stylesheet for the same browsers, so the page links the client's one file (decision 067).
  build: {
    copyPublicDir: false,
    cssTarget: BROWSERS,
    ...(isSsrBuild ? { target: "node24" } : {}),
  },
  optimizeDeps: {
    include: ["react", "react-dom", "react-dom/client", "@radix-ui/react-tooltip", "@radix-ui/react-toast"],
  },
  test: {
    environment: "node",
    restoreMocks: true,
    // Waits on what a test needs, for as long as a busy machine takes to give it.
    expect: { poll: { timeout: 10_000 } },
    // Names the Node that runs the tests, and refuses one older than .nvmrc's; one temporary folder per run.
    globalSetup: ["tests/support/node-version.ts", "tests/support/run-tmpdir.ts"],
    // unit: in-process code only; integration: anything with a server, a
    // child process, a socket or the file system (docs/development.md, "Tests").
    // Integration files mostly wait (on a server, the provider's pace, a redelivery), not compute: three run at
    // once, even on 2 cores. The few that load the machine on purpose run after them, one at a time.
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.{ts,tsx}"] } },
      {
        extends: true,
        // A test that runs a server or a CLI process a few times takes seconds on a busy machine.
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.{ts,tsx}"],
          exclude: LOADS_THE_MACHINE,
          testTimeout: 30_000,
          globalSetup: [POSTGRES],
        },
      },
      {
        extends: true,
        test: {
          name: "integration-alone",
          include: LOADS_THE_MACHINE,
          testTimeout: 30_000,
          globalSetup: [POSTGRES],
          poolOptions: { forks: { singleFork: true } },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
}));

// Single fetch changes what loaders and actions return to the client (remix.config.js).
declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}
