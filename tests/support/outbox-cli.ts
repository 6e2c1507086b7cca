// Runs the bundled build/outbox.js as its own process, as in the container: production, and only the
// variables given. Needs `npm run build` first.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./app-server";

export const CLI = path.join(ROOT, "build/outbox.js");

export function runOutboxCli(args: string[], childEnv: Record<string, string>) {
  if (!existsSync(CLI)) throw new Error("No build/outbox.js: run `npm run build` first.");
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...childEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
