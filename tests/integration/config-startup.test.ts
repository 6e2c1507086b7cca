// The production server (build/server.js) refuses a bad environment, a store it cannot open, or a Node older than
// .nvmrc's, with one line on stderr naming what is wrong, exit code 1, no stack trace; DATABASE_URL is its store.
import { spawn, spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { ROOT, startAppServer } from "../support/app-server";
import { freePort } from "../support/free-port";
import { freshDatabase } from "../support/postgres-server";

/** Starts `npm start`'s command (or `script` and its words, on `node`) with `env`; resolves with its exit code and output. */
function start(env: Record<string, string>, script = "build/server.js", node = [process.execPath]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(node[0]!, [...node.slice(1), ...script.split(" ")], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", HOST: "127.0.0.1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

it("a PORT that is not a number: one line naming it, exit 1", async () => {
  const { code, stdout, stderr } = await start({ PORT: "eighty" });
  expect(stderr).toBe("ConfigError: Invalid environment: PORT must be a whole number\n");
  expect(stdout).toBe("");
  expect(code).toBe(1);
}, 60_000);

it("some EmailJS ids without the others: one line naming the missing ones and no value, exit 1", async () => {
  const { code, stdout, stderr } = await start({
    PORT: String(await freePort()),
    EMAILJS_PUBLIC_KEY: "pk_SECRET_config",
  });
  expect(stderr).toBe(
    "ConfigError: EmailJS is partly configured: set all of EMAILJS_PUBLIC_KEY, EMAILJS_SERVICE_ID, " +
      "EMAILJS_TEMPLATE_ID or none of them. Missing: EMAILJS_SERVICE_ID, EMAILJS_TEMPLATE_ID\n",
  );
  expect(stdout).toBe("");
  expect(code).toBe(1);
}, 60_000);

/** The settings whose absence the server warns of on stderr, set: a refusal is then its one line. */
const QUIET = { TRUST_PROXY: "loopback", SESSION_SECRET: "a-session-secret-of-32-characters" };

it("a DATABASE_URL that is not PostgreSQL's: one line naming it and not its value, exit 1", async () => {
  const { code, stdout, stderr } = await start({
    PORT: String(await freePort()),
    DATABASE_URL: "mysql://portfolio:pg-PASSWORD@db/portfolio",
  });
  expect(stderr).toBe(
    "ConfigError: Invalid environment: DATABASE_URL must be a postgres:// or postgresql:// URL\n",
  );
  expect(stdout).toBe("");
  expect(code).toBe(1);
}, 60_000);

it("a DATABASE_URL whose password the server refuses: one StoreError line naming the database, never the password, exit 1", async () => {
  const url = new URL(await freshDatabase());
  url.password = "pg-PASSWORD-wrong";
  const { code, stdout, stderr } = await start({
    PORT: String(await freePort()),
    DATABASE_URL: url.href,
    ...QUIET,
  });
  expect(stderr).toBe(
    `StoreError: cannot open the PostgreSQL database ${url.pathname.slice(1)} at ${url.host}: ` +
      `password authentication failed for user "${url.username}"\n`,
  );
  expect(stdout).not.toContain(url.password);
  expect(code).toBe(1);
}, 60_000);

it("the owner's CLI with a DATABASE_URL nobody answers: one StoreError line naming the database, exit 1, no wait", async () => {
  const url = new URL(await freshDatabase());
  url.port = String(await freePort());
  const { code, stdout, stderr } = await start({ DATABASE_URL: url.href, ...QUIET }, "build/outbox.js list");
  expect(stderr).toMatch(
    new RegExp(
      `^StoreError: cannot reach the PostgreSQL database ${url.pathname.slice(1)} at ${url.host}: .+\n$`,
    ),
  );
  expect(stdout).toBe("");
  expect(stderr).not.toContain(url.password);
  expect(code).toBe(1);
}, 60_000);

it("with a DATABASE_URL the server opens its store in that database, and names it without the password", async () => {
  const url = new URL(await freshDatabase());
  // Relay mode, so that the redelivery loop starts and says what the store holds; nothing is sent.
  const relay = {
    EMAILJS_PUBLIC_KEY: "pk_config",
    EMAILJS_SERVICE_ID: "svc_config",
    EMAILJS_TEMPLATE_ID: "tpl_config",
    EMAILJS_API_URL: `http://127.0.0.1:${await freePort()}`,
  };
  const server = await startAppServer({ env: { DATABASE_URL: url.href, ...relay } });
  try {
    await expect
      .poll(server.output)
      .toContain(
        `"outcome":"store_opened","where":"the PostgreSQL database ${url.pathname.slice(1)} at ${url.host}","kept":0,"spam":0`,
      );
    expect(server.output()).not.toContain(url.password);
  } finally {
    await server.stop();
  }
}, 60_000);

/** This Node, told it is Node 20 before anything of ours runs. */
const AS_NODE_20 = [
  process.execPath,
  "--import",
  'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.0.0"})',
];
/** The machine's own Node when it is older than .nvmrc's (Debian's is 20): it lacks node:sqlite for real. */
const machineNode = spawnSync("/usr/bin/node", ["-p", "process.versions.node"], {
  encoding: "utf8",
}).stdout?.trim();
const olderMachineNode = machineNode && Number(machineNode.split(".")[0]) < 24 ? machineNode : null;

it.each([
  ["npm start", "build/server.js"],
  ["the owner's CLI", "build/outbox.js"],
])(
  "%s on an older Node: one line naming the Node it needs, exit 1",
  async (_name, script) => {
    const { code, stdout, stderr } = await start({ PORT: String(await freePort()) }, script, AS_NODE_20);
    expect(stderr).toBe("This needs Node 24 or newer (.nvmrc); this is Node 20.0.0.\n");
    expect(stdout).toBe("");
    expect(code).toBe(1);
  },
  60_000,
);

it.runIf(olderMachineNode)(
  "npm start on the machine's older Node (no node:sqlite): the same one line",
  async () => {
    const { code, stdout, stderr } = await start({ PORT: String(await freePort()) }, "build/server.js", [
      "/usr/bin/node",
    ]);
    expect(stderr).toBe(`This needs Node 24 or newer (.nvmrc); this is Node ${olderMachineNode}.\n`);
    expect(stdout).toBe("");
    expect(code).toBe(1);
  },
  60_000,
);
