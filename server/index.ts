// The production server, remix-serve's stack plus our checks (decision 020); `npm start` and the
// Docker image run it, bundled to build/server.js.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import { installGlobals, type ServerBuild } from "@remix-run/node";
import compression from "compression";
import express, { type ErrorRequestHandler } from "express";
import morgan from "morgan";
import type * as AppEntry from "../app/entry.server";
import { logRefusal } from "./log";
import { requestChecks } from "./request-checks";
import { securityHeaders } from "./security-headers";
import { drainOnSignal } from "./shutdown";

installGlobals({ nativeFetch: true });
// `npm start` without NODE_ENV must not load React's development build.
process.env.NODE_ENV ??= "production";

const buildDir = path.dirname(fileURLToPath(import.meta.url));
const build: ServerBuild = await import(pathToFileURL(path.join(buildDir, "server/index.js")).href);
const entry = build.entry.module as unknown as Pick<
  typeof AppEntry,
  "serverOptions" | "sharedPageReply" | "startContactRedelivery"
>;
const { port, host, trustProxyHops } = entry.serverOptions;

const app = express();
app.disable("x-powered-by");
// Nothing reads req.query (Remix reads the URL): no qs parse for "/?index" posts and the like.
app.set("query parser", false);
// Hops, as the rate limit counts them: req.secure and the URL's host then follow the proxy's headers.
app.set("trust proxy", trustProxyHops);
app.use(securityHeaders);
app.use(requestChecks(() => build, trustProxyHops));
// A page, with its strong ETag, comes encoded already (decision 027).
app.use(
  compression({
    filter: (req, res) => !/^"/.test(String(res.getHeader("ETag") ?? "")) && compression.filter(req, res),
  }),
);
// No directory redirects: serve-static would answer "////\/.." with "Location: /\/../", off-site.
app.use(
  build.publicPath,
  express.static(path.join(buildDir, "client"), { immutable: true, maxAge: "1y", redirect: false }),
);
app.use(express.static(path.join(buildDir, "../public"), { maxAge: "1h", redirect: false }));
app.use(morgan("tiny"));
// A shared page, asked for without a cookie, comes from memory before Remix runs (decision 027).
app.use((req, res, next) => {
  const read = req.method === "GET" || req.method === "HEAD";
  const reply = read && !req.headers.cookie ? entry.sharedPageReply(req.path, req.headers) : null;
  if (reply) res.writeHead(reply.status, reply.headers).end(reply.body);
  else next();
});
app.all(
  "*",
  createRequestHandler({
    build,
    mode: process.env.NODE_ENV,
    getLoadContext: (req, res) => ({
      crossSite: res.locals.crossSite === true,
      sentOrigin: res.locals.sentOrigin === true,
      peerAddress: req.socket.remoteAddress,
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
const server = host ? app.listen(port, host, onListen) : app.listen(port, onListen);
const redelivery = entry.startContactRedelivery();
drainOnSignal(server, redelivery.stop);
