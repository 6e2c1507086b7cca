// What the server (server/index.ts) hands every loader and action, under `npm start` and `npm run dev` alike.
declare module "@remix-run/node" {
  interface AppLoadContext {
    /** A post whose Origin names another site (server/request-checks.ts). */
    crossSite?: boolean;
    /** The post named an Origin (the request checks remove the header once judged). */
    sentOrigin?: boolean;
    /** The client's address: the peer, or what trusted proxies forwarded (`trust proxy`, decision 034). */
    clientAddress?: string;
  }
}

export {};
