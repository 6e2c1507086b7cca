import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./app-server";
import { requireBinary } from "./binary";
import { freePort } from "./free-port";
import { untilStarted } from "./until";

export const CADDYFILE = join(ROOT, "deploy/Caddyfile");

export type Answer = { status: number; headers: IncomingHttpHeaders; rawHeaders: string[]; body: string };

export type CaddyRequest = {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The site name the browser asks for (SNI and Host). */
  host?: string;
  scheme?: "http" | "https";
};

export type Caddy = {
  httpPort: number;
  httpsPort: number;
  /** Caddy's internal root CA, which the requests trust (and nothing else). */
  rootCa: string;
  /** A browser's request, sent to 127.0.0.1 with the site name as SNI and Host; never follows redirects. */
  request: (path: string, options?: CaddyRequest) => Promise<Answer>;
  output: () => string;
  stop: () => Promise<void>;
};

/**
 * deploy/Caddyfile as is, run by the system's caddy on 127.0.0.1 and free
 * ports, with its storage in a temporary folder; resolves once it answers
 * over HTTPS.
 */
/** Only what Caddy reads, its home and storage in `home` (NODE_ENV is there for the type Remix declares). */
export function caddyEnv(home: string, proxy: Record<string, string>) {
  return {
    NODE_ENV: "production",
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_DATA_HOME: join(home, "data"),
    XDG_CONFIG_HOME: join(home, "config"),
    ...proxy,
  } as const;
}

export async function startCaddy({
  upstreams,
  siteAddress,
  readyStatus = 200,
}: {
  upstreams: string[];
  siteAddress: string;
  /** What /healthz answers through Caddy once it is up (503 when no upstream lives). */
  readyStatus?: number;
}): Promise<Caddy> {
  const bin = requireBinary("caddy");
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const home = mkdtempSync(join(tmpdir(), "portfolio-caddy-"));
  let log = "";
  const child = spawn(bin, ["run", "--config", CADDYFILE, "--adapter", "caddyfile"], {
    cwd: home,
    env: caddyEnv(home, {
      SITE_ADDRESS: siteAddress,
      APP_UPSTREAMS: upstreams.join(" "),
      HTTP_PORT: String(httpPort),
      HTTPS_PORT: String(httpsPort),
      CADDY_BIND: "127.0.0.1",
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (log += chunk));
  child.stderr?.on("data", (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const rootCaPath = join(home, "data/caddy/pki/authorities/local/root.crt");

  let rootCa = "";
  const request: Caddy["request"] = (
    path,
    { method = "GET", headers = {}, body, host = "localhost", scheme = "https" } = {},
  ) =>
    new Promise((resolve, reject) => {
      const port = scheme === "https" ? httpsPort : httpPort;
      const send = scheme === "https" ? httpsRequest : httpRequest;
      const outgoing = send(
        {
          host: "127.0.0.1",
          port,
          path,
          method,
          agent: false,
          ...(scheme === "https" ? { servername: host, ca: rootCa } : {}),
          headers: { Host: `${host}:${port}`, ...headers },
        },
        (response) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk) => (text += chunk));
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              rawHeaders: response.rawHeaders,
              body: text,
            }),
          );
          response.on("error", reject);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });

  await untilStarted(
    "caddy (HTTPS)",
    child,
    () => log,
    async () => {
      try {
        rootCa ||= readFileSync(rootCaPath, "utf8");
        return (await request("/healthz")).status === readyStatus;
      } catch {
        return false; // no CA or no certificate yet
      }
    },
  );

  return {
    httpPort,
    httpsPort,
    rootCa,
    request,
    output: () => log,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
