// What the server (server/index.ts) hands every loader and action, under `npm start` and `npm run dev` alike.
declare module "@remix-run/node" {
  interface AppLoadContext {
    crossSite?: boolean;
    sentOrigin?: boolean;
    /** The peer, or what trusted proxies forwarded (decision 034). */
    clientAddress?: string;
  }
}

export {};
