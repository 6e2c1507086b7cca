// A real shared HTTP cache for the tests: Debian's varnishd with its built-in
// VCL unchanged, in front of the given app replicas (round robin), on
// 127.0.0.1 and a free port, with its working folder in a temporary folder.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answering } from "./app-server";
import { requireBinary } from "./binary";
import { freePort } from "./free-port";

export type Varnish = { url: string; output: () => string; stop: () => Promise<void> };

/**
 * The VCL declares the backends and picks one per request, nothing more:
 * vcl_recv does not return, so the built-in VCL decides what is cached
 * (no Cookie or Authorization, no Set-Cookie, no private/no-cache/no-store).
 */
function vcl(upstreams: number[]) {
  const backends = upstreams.map((port, i) => `backend app${i} { .host = "127.0.0.1"; .port = "${port}"; }`);
  const added = upstreams.map((_, i) => `  apps.add_backend(app${i});`);
  return [
    "vcl 4.1;",
    "import directors;",
    ...backends,
    "sub vcl_init {",
    "  new apps = directors.round_robin();",
    ...added,
    "}",
    "sub vcl_recv {",
    "  set req.backend_hint = apps.backend();",
    "}",
    "",
  ].join("\n");
}

export async function startVarnish(upstreams: number[]): Promise<Varnish> {
  const bin = requireBinary("varnishd", "varnish");
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "portfolio-varnish-"));
  writeFileSync(join(dir, "test.vcl"), vcl(upstreams));
  let log = "";
  const child = spawn(
    bin,
    [
      "-F",
      "-j",
      "none",
      "-n",
      join(dir, "work"),
      "-a",
      `127.0.0.1:${port}`,
      "-f",
      join(dir, "test.vcl"),
      "-s",
      "malloc,64m",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (chunk) => (log += chunk));
  child.stderr?.on("data", (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;

  // The manager binds the address before it launches its child.
  await answering(`${url}/healthz`, "varnishd", child, () => log, "Child launched OK");

  return {
    url,
    output: () => log,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}
