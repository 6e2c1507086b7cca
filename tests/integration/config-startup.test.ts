// The production server (build/server.js) refuses a bad environment, or a Node older than .nvmrc's, with one
// line on stderr naming what is wrong, exit code 1, nothing printed before it and no stack trace.
import { spawn, spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { ROOT } from "../support/app-server";
import { freePort } from "../support/free-port";

/** Starts `npm start`'s command (or `script`, on `node`) with `env`; resolves with its exit code and output. */
function start(env: Record<string, string>, script = "build/server.js", node = [process.execPath]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(node[0]!, [...node.slice(1), script], {
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
