import { vitePlugin as remix } from "@remix-run/dev";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vitest/config";
import remixOptions from "./remix.config.js";
import { socialAssets } from "./social/vite-plugin";

export default defineConfig({
  // remix.config.js holds the Remix options; the Vite plugin only sees them here.
  // socialAssets draws the preview image and icons (social/vite-plugin.ts).
  plugins: [tailwindcss(), socialAssets(), !process.env.VITEST && remix(remixOptions)],
  resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
  // remix-serve gives everything in build/client a one-year immutable cache,
  // right only for hashed files; public/ stays out of it and is served from
  // public/ with remix-serve's one-hour cache (the image copies public/).
  build: { copyPublicDir: false },
  optimizeDeps: {
    include: ["react", "react-dom", "react-dom/client", "@radix-ui/react-tooltip", "@radix-ui/react-toast"],
  },
  test: {
    include: ["tests/unit/**/*.test.{ts,tsx}", "tests/integration/**/*.test.{ts,tsx}"],
    environment: "node",
    restoreMocks: true,
  },
});

// Single fetch changes what loaders and actions return to the client (remix.config.js).
declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}
