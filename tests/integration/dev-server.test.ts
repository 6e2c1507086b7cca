// `npm run dev` is the production server with Vite as middleware: the same security headers, the same
// CSP (its script hashes aside), the same caching and the same request checks as `npm start`.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { answering, ROOT } from "../support/app-server";
import { freePort } from "../support/free-port";
import { scratchOutbox } from "../support/scratch-outbox";

const COMPARED = [
  "content-security-policy",
  "x-content-type-options",
  "referrer-policy",
  "permissions-policy",
  "cross-origin-opener-policy",
  "strict-transport-security",
  "access-control-allow-origin",
  "cache-control",
  "vary",
  "content-type",
];

type Started = { url: string; stop: () => Promise<void> };

/** Runs `npm run <script>` on a free port of 127.0.0.1 until stopped; resolves once /healthz answers. */
async function npmRun(script: "dev" | "start"): Promise<Started> {
  const port = await freePort();
  let log = "";
  const child = spawn("npm", ["run", "--silent", script], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: script === "dev" ? "development" : "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      // Never the checkout's ./outbox, where the owner's own messages may be.
      OUTBOX_DIR: scratchOutbox(),
    },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: npm, the shell and the server are stopped together.
    detached: true,
  });
  child.stdout.on("data", (chunk) => (log += chunk));
  child.stderr.on("data", (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await answering(`${url}/healthz`, `npm run ${script}`, child, () => log);
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
      await exited;
    },
  };
}

/** The headers compared, the CSP's script hashes written as one placeholder. */
function shape(headers: Headers) {
  return Object.fromEntries(
    COMPARED.map((name) => [
      name,
      headers
        .get(name)
        ?.replace(/ 'sha256-[A-Za-z0-9+/=]+'/g, "")
        .replace("script-src 'self'", "script-src 'self' HASHES"),
    ]),
  );
}

let dev: Started;
let production: Started;
beforeAll(async () => {
  [dev, production] = await Promise.all([npmRun("dev"), npmRun("start")]);
}, 180_000);
afterAll(async () => {
  await Promise.all([dev?.stop(), production?.stop()]);
}, 30_000);

it("the development server is Vite's: its page loads Remix's hot-reload runtime", async () => {
  const marker = "virtual:remix/inject-hmr-runtime";
  expect((await (await fetch(`${dev.url}/`)).text()).includes(marker)).toBe(true);
  expect((await (await fetch(`${production.url}/`)).text()).includes(marker)).toBe(false);
}, 120_000);

it.each(["/", "/robots.txt", "/favicon.svg", "/no-such-page"])(
  "%s: the same security headers, CSP shape and caching in development and production",
  async (path) => {
    const [inDev, inProduction] = await Promise.all([fetch(dev.url + path), fetch(production.url + path)]);
    expect(inDev.status).toBe(inProduction.status);
    expect(shape(inDev.headers)).toEqual(shape(inProduction.headers));
    expect(inProduction.headers.get("content-security-policy")).toBeTruthy();
    expect(inProduction.headers.get("x-content-type-options")).toBe("nosniff");
  },
  120_000,
);

it("/: each page's policy names the hashes of its own inline scripts, in both", async () => {
  for (const { url } of [dev, production]) {
    const policy = (await fetch(`${url}/`)).headers.get("content-security-policy") ?? "";
    expect(policy).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+ 'strict-dynamic'/);
  }
}, 120_000);

it("the request checks run in development too: a post where no action is gets 405", async () => {
  for (const { url } of [dev, production]) {
    const response = await fetch(`${url}/robots.txt`, { method: "POST" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  }
}, 120_000);
