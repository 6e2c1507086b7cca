// A production build of any checkout, this one or an earlier commit's: built, started as `npm start`, and its
// owner's CLI asked how many messages it keeps. Lets the bench measure the code before a change in the same run.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./ts.mjs";

const built = (dir) => ["build/server.js", "build/outbox.js"].every((f) => existsSync(path.join(dir, f)));

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "pipe", 2], encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed in ${cwd}`);
  return result.stdout.trim();
}

/**
 * A detached worktree of `rev` outside the repository (in the temporary folder, kept for the next run), with
 * this checkout's node_modules when its lockfile is the same, else its own, and its own production build;
 * resolves with its folder.
 */
export function prepareCheckout(rev, log) {
  const commit = run("git", ["rev-parse", "--verify", `${rev}^{commit}`], ROOT);
  const dir = path.join(os.tmpdir(), `bench-before-${commit.slice(0, 7)}`);
  if (!existsSync(dir)) {
    log(`a worktree of ${commit.slice(0, 7)} in ${dir}`);
    run("git", ["worktree", "add", "--detach", dir, commit], ROOT);
  }
  const modules = path.join(dir, "node_modules");
  const lock = (root) => readFileSync(path.join(root, "package-lock.json"), "utf8");
  if (!existsSync(modules) && lock(dir) === lock(ROOT)) {
    symlinkSync(realpathSync(path.join(ROOT, "node_modules")), modules);
  } else if (!existsSync(modules)) {
    log(`installing ${commit.slice(0, 7)}'s own dependencies (npm install in ${dir})`);
    run("npm", ["install", "--no-audit", "--no-fund"], dir);
  }
  if (!built(dir)) {
    log(`building ${commit.slice(0, 7)} (npm run build in ${dir})`);
    const result = spawnSync("npm", ["run", "build"], { cwd: dir, stdio: ["ignore", 2, 2] });
    if (result.status !== 0 || !built(dir)) throw new Error(`npm run build failed in ${dir}`);
  }
  return { dir, commit };
}

/** `node build/outbox.js list` of `root` with a server's `env`, as the owner runs it: the count it prints. */
export function countUndelivered(root, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "build/outbox.js"), "list"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      const count = /^(\d+) undelivered message\(s\)/m.exec(out)?.[1];
      if (count === undefined) reject(new Error(`outbox list in ${root} exited with ${code}: ${out}`));
      else resolve(Number(count));
    });
  });
}
