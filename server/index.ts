// The one server, remix-serve's stack and our checks, for `npm start` and `npm run dev` (decisions 020, 031).
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import { installGlobals, type ServerBuild, type ServerEntryModule } from "@remix-run/node";
import compression from "compression";
import express, { type ErrorRequestHandler } from "express";
import morgan from "morgan";
import proxyAddr from "proxy-addr";
import type { ViteDevServer } from "vite";
import type { startContactRedelivery } from "../app/entry.server";
import { logRefusal } from "./log";
import { ownerOnlyAssets } from "./owner-assets";
import { requestChecks, type TrustProxy } from "./request-checks";
import { securityHeaders } from "./security-headers";
import { drainOnSignal } from "./shutdown";
import { refuseOlderNode } from "./node-version";

refuseOlderNode();
installGlobals({ nativeFetch: true });
// `npm start` without NODE_ENV must not load React's development build.
process.env.NODE_ENV ??= "production";
const DEVELOPMENT = process.env.NODE_ENV === "development";

// Read first, so a bad value is one line; the app's build gets the same object (decision 032).
const { config, announceConfig } = await import("../app/config.server").catch(refuseToStart);
announceConfig();
const { port, host, trustProxy } = config;

const buildDir = path.dirname(fileURLToPath(import.meta.url));
const app = express();
const server = createServer(app);
// Vite's HMR socket shares the server's port (connect-src 'self'); public/ is served below as in production.
const vite: ViteDevServer | undefined = DEVELOPMENT
  ? await import("vite").then(({ createServer: createViteServer }) =>
      createViteServer({
        server: { middlewareMode: true, hmr: { server }, cors: false },
        appType: "custom",
        publicDir: false,
      }),
    )
  : undefined;
const production: ServerBuild | undefined = vite
  ? undefined
  : await import(pathToFileURL(path.join(buildDir, "server/index.js")).href).catch(refuseToStart);
const developmentBuild = () => vite!.ssrLoadModule("virtual:remix/server-build") as Promise<ServerBuild>;
const ownerAssets = production ? ownerOnlyAssets(production) : new Set<string>();
const loadBuild = (): ServerBuild | Promise<ServerBuild> => production ?? developmentBuild();

app.disable("x-powered-by");
// Nothing reads req.query (Remix reads the URL): no qs parse for "/?index" posts and the like.
app.set("query parser", false);
// One rule, compiled as Express compiles the setting, for req.ip, req.protocol and the checks (decision 034).
const trusted: TrustProxy =
  typeof trustProxy === "number" ? (_address, hop) => hop < trustProxy : proxyAddr.compile(trustProxy);
app.set("trust proxy", trusted);
app.use(securityHeaders);
app.use(requestChecks(loadBuild, trusted));
// A page, with its strong ETag, comes encoded already (decision 027).
app.use(
  compression({
    filter: (req, res) => !/^"/.test(String(res.getHeader("ETag") ?? "")) && compression.filter(req, res),
  }),
);
if (vite) app.use(vite.middlewares);
// No directory redirects: serve-static would answer "////\/.." with "Location: /\/../", off-site.
else
  app.use(
    production!.publicPath,
    express.static(path.join(buildDir, "client"), {
      immutable: true,
      maxAge: "1y",
      redirect: false,
      setHeaders: (res) => {
        if (ownerAssets.has(res.req.originalUrl.split("?")[0]!))
          res.setHeader("Cache-Control", "private, no-store");
      },
    }),
  );
app.use(express.static(path.join(buildDir, "../public"), { maxAge: "1h", redirect: false }));
app.use(morgan("tiny"));
app.all(
  "*",
  createRequestHandler({
    build: production ?? developmentBuild,
    mode: process.env.NODE_ENV,
    getLoadContext: (req, res) => ({
      crossSite: res.locals.crossSite === true,
      sentOrigin: res.locals.sentOrigin === true,
      clientAddress: req.ip,
    }),
  }),
);
const onError: ErrorRequestHandler = (error: { status?: number; type?: string }, req, res, _next) => {
  // Errors that carry a 4xx (a body cut short, a path that does not decode) are the client's doing.
  const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 500;
  if (status < 500) logRefusal(status, error.type ?? "bad_request", req);
  else console.error(error);
  if (res.headersSent) res.destroy();
  else
    res
      .status(status)
      .type("text/plain")
      .send(status < 500 ? "Bad request." : "Internal server error.");
};
app.use(onError);

const onListen = () => console.log(`[server] listening on http://${host ?? "localhost"}:${port}`);
if (host) server.listen(port, host, onListen);
else server.listen(port, onListen);
const redelivery = appEntry(await Promise.resolve(loadBuild()).catch(refuseToStart)).startContactRedelivery();
drainOnSignal(
  server,
  async () => {
    await redelivery.stop();
    await vite?.close();
  },
  () => redelivery.close(),
);

function appEntry(build: ServerBuild) {
  const entry: ServerEntryModule & { startContactRedelivery?: typeof startContactRedelivery } =
    build.entry.module;
  if (typeof entry.startContactRedelivery !== "function") {
    throw new TypeError("The build's entry.server does not export startContactRedelivery.");
  }
  return { startContactRedelivery: entry.startContactRedelivery };
}

/** A bad setting, or a store that cannot be opened: one line, and no server. */
function refuseToStart(error: unknown): never {
  if (!(error instanceof Error) || !["ConfigError", "StoreError"].includes(error.name)) throw error;
  console.error(`${error.name}: ${error.message}`);
  process.exit(1);
}
