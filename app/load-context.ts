// What the production server (server/index.ts) hands every loader and action.
// Absent under the Vite dev server, which has no such middleware.
declare module "@remix-run/node" {
  interface AppLoadContext {
    /** A post whose Origin names another site (server/request-checks.ts). */
    crossSite?: boolean;
  }
}

export {};
