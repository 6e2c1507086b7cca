// What the production server (server/index.ts) hands every loader and action; absent under Vite's dev server.
declare module "@remix-run/node" {
  interface AppLoadContext {
    /** A post whose Origin names another site (server/request-checks.ts). */
    crossSite?: boolean;
  }
}

export {};
