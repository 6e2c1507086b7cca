/**
 * The one home of the Remix options. The Vite plugin does not read this file
 * by itself; vite.config.ts imports it and passes it to `remix()`.
 * @type {import("@remix-run/dev").VitePluginConfig}
 */
export default {
  ignoredRouteFiles: ["**/.*", "**/*.test.*", "**/*.spec.*"],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    // Keeps Node's native fetch on the server (docs/decisions/002-single-fetch.md).
    v3_singleFetch: true,
  },
};
