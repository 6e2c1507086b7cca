// The checks every request passes before Remix runs, and the Origin of a post judged (decisions 020, 033).
import type { ServerBuild } from "@remix-run/node";
import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";
import type { Request as ExpressRequest, RequestHandler } from "express";
import { logRefusal } from "./log";

const READ_ONLY = ["GET", "HEAD"];
const WITH_POST = [...READ_ONLY, "POST"];

export type TrustProxy = (address: string, hop: number) => boolean;

// What Remix would not refuse cleanly, refused before it runs (decisions 020, 028).
export function requestChecks(
  loadBuild: () => ServerBuild | Promise<ServerBuild>,
  trustProxy: TrustProxy,
): RequestHandler {
  return (req, res, next) => {
    // Express 4's req.hostname believes it by the same rule, but drops the port the Origin is compared with.
    const forwardedHost = trustProxy(req.socket.remoteAddress ?? "", 0)
      ? req.get("x-forwarded-host")
      : undefined;
    const pathname = parsePathname(req, forwardedHost);
    if (pathname === null) {
      logRefusal(400, "malformed_url", req);
      res.status(400).type("text/plain").send("Bad request: the URL or Host header is malformed.");
      return;
    }
    const query = req.originalUrl.indexOf("?");
    // A backslash is a slash to browsers and in the URL Remix is given ("/\" is "//").
    if (/\/\/|\\/.test(req.path)) {
      const single = req.path.replace(/[/\\]+/g, "/");
      res.redirect(
        READ_ONLY.includes(req.method) ? 301 : 308,
        single + (query < 0 ? "" : req.originalUrl.slice(query)),
      );
      return;
    }
    // No page has one, and react-router cannot make a URL of a path that starts with one.
    if (decodeURIComponent(pathname).includes("\\")) {
      logRefusal(404, "backslash_path", req);
      res.status(404).type("text/plain").send("Not found.");
      return;
    }
    // Single fetch never sends it; Remix would answer and log a warning with a stack.
    if (query >= 0 && new URLSearchParams(req.originalUrl.slice(query)).has("_data")) {
      logRefusal(400, "data_query", req);
      res.status(400).type("text/plain").send("Bad request: this site takes no ?_data requests.");
      return;
    }
    const checkMethod = (loaded: ServerBuild) => {
      const allowed = allowedMethods(loaded, pathname);
      if (!allowed.includes(req.method)) {
        logRefusal(405, "method_not_allowed", req);
        res
          .status(405)
          .set("Allow", allowed.join(", "))
          .type("text/plain")
          .send(`Method ${req.method} not allowed.`);
        return;
      }
      res.locals.crossSite = req.method === "POST" && isCrossSite(req, forwardedHost);
      res.locals.sentOrigin = req.get("origin") !== undefined;
      // Remix would judge it again, for HEAD data requests too, and throw.
      delete req.headers.origin;
      next();
    };

    // At once when loaded: the 405 must be written before Node parses the rest of the connection.
    const build = loadBuild();
    if (build instanceof Promise) build.then(checkMethod).catch(next);
    else checkMethod(build);
  };
}

const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

function parsePathname(req: ExpressRequest, forwardedHost: string | undefined): string | null {
  const host = forwardedHost || req.get("host");
  if (!host || !HOST.test(host.split(",")[0]!.trim())) return null;
  if (req.protocol !== "http" && req.protocol !== "https") return null;
  if (!req.originalUrl.startsWith("/")) return null;
  try {
    decodeURIComponent(req.path); // as the router will, before any dot segment is resolved
    const { pathname } = new URL(`${req.protocol}://${req.hostname}${req.originalUrl}`);
    decodeURIComponent(pathname);
    return pathname;
  } catch {
    return null;
  }
}

export function allowedMethods(build: ServerBuild, pathname: string): string[] {
  const matches = matchRoutes(routeTree(build), routePath(pathname));
  return matches?.at(-1)?.route.hasAction ? WITH_POST : READ_ONLY;
}

type RouteObject = AgnosticRouteObject & { hasAction: boolean };

const trees = new WeakMap<ServerBuild["routes"], RouteObject[]>();
function routeTree({ routes }: ServerBuild): RouteObject[] {
  let tree = trees.get(routes);
  if (!tree) {
    const children = (parentId?: string): RouteObject[] =>
      Object.values(routes)
        .filter((route) => route.parentId === parentId)
        .map(({ id, path, index, caseSensitive, module }) => {
          const hasAction = typeof module.action === "function";
          return index
            ? { id, path, index: true, caseSensitive, hasAction }
            : { id, path, caseSensitive, hasAction, children: children(id) };
        });
    tree = children();
    trees.set(routes, tree);
  }
  return tree;
}

function routePath(pathname: string) {
  if (pathname === "/_root.data") return "/";
  return pathname.replace(/\.data$/, "");
}

// No Origin (scripts, old browsers) passes: the guards still apply. A malformed one is another site.
function isCrossSite(req: ExpressRequest, forwardedHost: string | undefined): boolean {
  const origin = req.get("origin");
  if (origin === undefined) return false;
  let source: URL;
  try {
    source = new URL(origin);
  } catch {
    return true;
  }
  // Browsers send the serialized origin, scheme included (decision 028).
  if (source.origin !== origin || source.protocol !== `${req.protocol}:`) return true;
  const target = (forwardedHost?.split(",")[0]?.trim() || req.get("host") || "").toLowerCase();
  const defaultPort = req.protocol === "https" ? ":443" : ":80";
  return source.host !== (target.endsWith(defaultPort) ? target.slice(0, -defaultPort.length) : target);
}
