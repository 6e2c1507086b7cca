// The production server (build/server.js) refuses a bad environment with one line on stderr naming the
// variable and what is wrong, exit code 1, nothing printed before it and no stack trace.
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { ROOT } from "../support/app-server";
import { freePort } from "../support/free-port";

/** Starts `npm start`'s command with `env` and resolves with its exit code and output. */
function start(env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["build/server.js"], {
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
