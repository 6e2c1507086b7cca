// The production server: `npm start` and the Docker image run this file,
// bundled to build/server.js. docs/decisions explains why it is our own
// rather than remix-serve; it keeps remix-serve's pieces and static rules.
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
// This is the production server: `npm start` without NODE_ENV must not load
// React's development build with the app (slower renders, dev warnings).
process.env.NODE_ENV ??= "production";

const buildDir = path.dirname(fileURLToPath(import.meta.url));
const build: ServerBuild = await import(pathToFileURL(path.join(buildDir, "server/index.js")).href);
// The app reads and checks the environment once; the server asks it for what it needs.
const entry = build.entry.module as unknown as Pick<typeof AppEntry, "serverOptions" | "sharedPageReply">;
const { port, host, trustProxyHops } = entry.serverOptions;

const app = express();
app.disable("x-powered-by");
// Nothing reads req.query (Remix reads the URL): not parsing it saves every
// request with a query string, "/?index" posts included, a qs parse.
app.set("query parser", false);
// Hops, as the rate limit counts them: req.secure and the URL's host then follow the proxy's headers.
app.set("trust proxy", trustProxyHops);
app.use(securityHeaders);
app.use(requestChecks(build, trustProxyHops));
// A strong ETag names exact bytes: such a response (a page) comes encoded already, or asked not to be.
app.use(
  compression({
    filter: (req, res) => !/^"/.test(String(res.getHeader("ETag") ?? "")) && compression.filter(req, res),
  }),
);
// Hashed build files for a year; public/ (favicon, robots.txt) for an hour.
// No directory redirects: serve-static would answer "////\/.." with "Location: /\/../", off-site.
app.use(
  build.publicPath,
  express.static(path.join(buildDir, "client"), { immutable: true, maxAge: "1y", redirect: false }),
);
app.use(express.static(path.join(buildDir, "../public"), { maxAge: "1h", redirect: false }));
app.use(morgan("tiny"));
// A page every visitor shares, asked for without a cookie, comes from memory
// before Remix runs, as from a shared cache in front (decision 027).
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
    getLoadContext: (_req, res) => ({ crossSite: res.locals.crossSite === true }),
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
drainOnSignal(server);
