import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { onFreePort } from "./free-port";
import { scratchOutbox } from "./scratch-outbox";
import { untilStarted } from "./until";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Resolves once the process has said `listening` and `url` answers 2xx; fails with the process's log when it
 * exits first or 30 s pass. Its own line first: another process on that port (a busy machine) answers too.
 */
export const answering = (
  url: string,
  what: string,
  child: ChildProcess,
  log: () => string,
  listening = "[server] listening on",
) =>
  untilStarted(`${what} (${url})`, child, log, async () =>
    log().includes(listening)
      ? fetch(url).then(
          (response) => response.ok,
          () => false,
        )
      : false,
  );

export type AppServer = {
  url: string;
  port: number;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<number | null>;
};

/**
 * Starts the production server on the build, exactly as `npm start` does,
 * with the given environment, and resolves once /healthz answers. `root`:
 * another checkout's build (the bench's commit before).
 */
export async function startAppServer(options: StartOptions = {}): Promise<AppServer> {
  const { port } = options;
  return port ? startOnce(options, port) : onFreePort((free) => startOnce(options, free), /EADDRINUSE/);
}

type StartOptions = { env?: Record<string, string>; port?: number; node?: string; root?: string };

async function startOnce(
  { env = {}, node = process.execPath, root = ROOT }: StartOptions,
  chosenPort: number,
): Promise<AppServer> {
  const server = join(root, "build/server.js");
  if (!existsSync(server)) throw new Error(`No production build in ${root}: run \`npm run build\` first.`);
  let log = "";
  const child = spawn(node, [server], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      // Scripts post here: the proof that a person sent a message is tested where a test turns it on.
      CONTACT_BOT_CHECKS: "off",
      // Never the checkout's ./outbox, where the owner's own messages may be.
      OUTBOX_DIR: scratchOutbox(),
      ...env,
      PORT: String(chosenPort),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (log += chunk));
  child.stderr?.on("data", (chunk) => (log += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${chosenPort}`;

  await answering(`${url}/healthz`, "the server", child, () => log);

  return {
    url,
    port: chosenPort,
    child,
    output: () => log,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
