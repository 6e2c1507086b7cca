// What the production server (server/index.ts) hands every loader and action.
// Both are absent under the Vite dev server, which has no such middleware.
declare module "@remix-run/node" {
  interface AppLoadContext {
    /** This response's CSP nonce. */
    cspNonce?: string;
    /** A post whose Origin names another site (server/request-checks.ts). */
    crossSite?: boolean;
  }
}

export {};
