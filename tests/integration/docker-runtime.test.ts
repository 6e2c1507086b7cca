// The image without a Docker engine: the runtime stage replayed in a folder
// (tests/support/docker/runtime-stage.ts), its CMD started with its ENV on the base
// image's Node major (the Node running the tests: .nvmrc), as an unprivileged
// user. Proves the image's file set and command are complete, and that its
// store opens on PostgreSQL as well as in its outbox folder. Needs
// `npm run build` first; installs the production dependencies from the
// registry once (about half a minute).
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { platform } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDockerfile } from "../support/docker/dockerfile";
import {
  childEnv,
  findNpmCli,
  replayRuntimeStage,
  type ReplayedImage,
} from "../support/docker/runtime-stage";
import { ROOT, answering } from "../support/app-server";
import { fetchProof, notBefore } from "../support/proof";
import { BROWSER_HEADERS, VALID, postForm } from "../support/contact";
import { freePort } from "../support/free-port";
import { freshDatabase } from "../support/postgres-server";

const imageMajor = /^node:(\d+)-/.exec(readDockerfile()[0]!.base)?.[1];
// The process checks below read /proc; elsewhere the lint still runs.
const supported = platform() === "linux";
if (!supported) console.warn(`docker-runtime: skipped, the replay needs Linux, not ${platform()}`);

// Root here may act as the image's unprivileged user; otherwise we already are one.
const runAs = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

describe.skipIf(!supported)(`the runtime stage on Node ${imageMajor}, as a non-root user`, () => {
  let image: ReplayedImage;
  let server: ChildProcess;
  let exited: Promise<number | null>;
  let url: string;
  let port: number;
  let log = "";

  beforeAll(async () => {
    if (process.versions.node.split(".")[0] !== imageMajor)
      throw new Error(
        `The image runs Node ${imageMajor}; these tests run on ${process.version}: \`nvm use\`.`,
      );
    if (!existsSync(join(ROOT, "build/server.js")))
      throw new Error("No production build: run `npm run build` first.");
    image = replayRuntimeStage({
      node: process.execPath,
      npmCli: findNpmCli(),
      runAs: runAs && `${runAs.uid}:${runAs.gid}`,
    });

    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const [command, ...args] = image.cmd;
    expect(command).toBe("node");
    // `docker run -p` publishes the port; here PORT picks a free one. Nothing else is set: no secrets.
    server = spawn(image.node, args, {
      cwd: image.dir,
      env: childEnv({ PATH: `${image.shims}:/usr/bin:/bin`, ...image.env, PORT: String(port) }),
      stdio: ["ignore", "pipe", "pipe"],
      ...runAs,
    });
    server.stdout!.on("data", (chunk) => (log += chunk));
    server.stderr!.on("data", (chunk) => (log += chunk));
    exited = new Promise((resolve) => server.once("exit", resolve));
    await answering(`${url}/healthz`, "the image's CMD", server, () => log);
  }, 240_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill("SIGKILL");
      await exited;
    }
    if (image) {
      rmSync(image.dir, { recursive: true, force: true });
      rmSync(image.shims, { recursive: true, force: true });
    }
  });

  const healthcheck = () => {
    const [command, ...args] = image.healthcheck;
    expect(command).toBe("node");
    return spawnSync(image.node, args, {
      env: childEnv({ ...image.env, PORT: String(port) }),
      timeout: 10_000,
    }).status;
  };

  it("runs on the base image's Node major, under a user that is not root", () => {
    expect(execFileSync(image.node, ["-v"], { encoding: "utf8" })).toMatch(new RegExp(`^v${imageMajor}\\.`));
    expect(image.user).not.toMatch(/^(root|0)$/);
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1];
    expect(uid).not.toBe("0");
  });

  it("holds only package files, production dependencies, the build, public/ and the outbox", () => {
    expect(readdirSync(image.dir).sort()).toEqual([
      "build",
      "node_modules",
      "outbox",
      "package-lock.json",
      "package.json",
      "public",
    ]);
    const pkg = JSON.parse(readFileSync(join(image.dir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const name of Object.keys(pkg.dependencies))
      expect(existsSync(join(image.dir, "node_modules", name)), name).toBe(true);
    for (const name of ["vite", "vitest", "@remix-run/dev", "@playwright/test"]) {
      expect(existsSync(join(image.dir, "node_modules", name)), `${name} is not for production`).toBe(false);
    }
  });

  it("answers the health route and the home page with its assets", async () => {
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({
      status: "ok",
      mail: "outbox",
      store: "ok",
      rateLimit: "memory",
    });

    const home = await fetch(url);
    expect(home.status).toBe(200);
    const html = await home.text();
    expect(html).toContain("<h1");
    const asset = /(\/assets\/[\w.-]+\.js)/.exec(html)?.[1];
    expect(asset).toBeDefined();
    expect((await fetch(`${url}${asset}`)).status).toBe(200);
    expect((await fetch(`${url}/favicon.svg`)).status).toBe(200);
  });

  it("lets the unprivileged user write contact messages to the outbox, with the proof a browser solves", async () => {
    const headers = { ...BROWSER_HEADERS, Origin: url };
    const proof = await fetchProof(url, headers);
    await notBefore(proof.issuedAt, 3);
    const response = await postForm(`${url}/?index`, { ...VALID, altcha: proof.payload }, headers);
    expect(response.status).toBe(303);
    expect(readdirSync(join(image.dir, "outbox")).filter((name) => name.endsWith(".json"))).toHaveLength(1);
  }, 15_000);

  it("runs the outbox CLI (`node build/outbox.js`) with only the production dependencies", () => {
    const result = spawnSync(image.node, ["build/outbox.js", "list"], {
      cwd: image.dir,
      env: childEnv({ ...image.env }),
      encoding: "utf8",
      timeout: 10_000,
      ...runAs,
    });
    expect(result.stderr).not.toMatch(/Cannot find|ERR_MODULE_NOT_FOUND/);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`0 undelivered message(s) in ${join(image.dir, "outbox")}`);
  });

  it("opens the store on PostgreSQL (DATABASE_URL, as compose.yaml sets it) with only the production dependencies", async () => {
    const database = await freshDatabase();
    const result = spawnSync(image.node, ["build/outbox.js", "list"], {
      cwd: image.dir,
      env: childEnv({ ...image.env, DATABASE_URL: database }),
      encoding: "utf8",
      timeout: 20_000,
      ...runAs,
    });
    expect(result.stderr).not.toMatch(/Cannot find|ERR_MODULE_NOT_FOUND/);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^0 undelivered message\(s\) in /m);
    // The URL is a secret: the CLI names the database, never its password.
    expect(result.stdout + result.stderr).not.toContain(new URL(database).password);
  }, 30_000);

  it("passes its HEALTHCHECK while up, fails it once down, and exits 0 on SIGTERM", async () => {
    expect(healthcheck()).toBe(0);
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(healthcheck()).toBe(1);
  }, 30_000);
});
