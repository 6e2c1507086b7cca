// A real redis-server on 127.0.0.1, for the tests and the bench (plain Node: the vitest hooks are in use-redis-server.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireBinary } from "./binary";
import { onFreePort } from "./free-port";
import { untilStarted } from "./until";

export type RedisServer = {
  url: string;
  port: number;
  /** Stops the server (SIGTERM; it writes its append-only file first). */
  stop: () => Promise<void>;
  /** Starts it again on the same port and data folder. */
  start: () => Promise<void>;
  /** Empties it (FLUSHALL), so the next test starts with no job, count or allowance left. */
  flush: () => Promise<void>;
  output: () => string;
};

/**
 * A real redis-server on 127.0.0.1 and a free port, with append-only
 * persistence in a temporary folder, as compose.yaml runs it.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const bin = requireBinary("redis-server");
  let port = 0;
  const dir = mkdtempSync(join(tmpdir(), "portfolio-redis-"));
  let log = "";
  let child: ChildProcess | null = null;

  const start = async () => {
    const started = spawn(
      bin,
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--save", ""],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child = started;
    started.stdout?.on("data", (chunk) => (log += chunk));
    started.stderr?.on("data", (chunk) => (log += chunk));
    // Its own line first: another redis-server on that port (a second test run) answers PING too.
    const ready = async () => log.includes("Ready to accept connections") && answersPing(port);
    await untilStarted("redis-server", started, () => log, ready, 15_000);
  };

  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGTERM");
    await exited;
  };

  const flush = async () => {
    const reply = await ask(port, "FLUSHALL");
    if (!reply.startsWith("+OK")) throw new Error(`FLUSHALL: ${reply}`);
  };

  await onFreePort(async (free) => {
    port = free;
    await start();
  }, /already in use/i);
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, flush, output: () => log };
}

/** True when a RESP PING gets PONG (no client library: this checks the server, not our code). */
const answersPing = (port: number) =>
  ask(port, "PING").then(
    (reply) => reply.startsWith("+PONG"),
    () => false,
  );

/** One inline RESP command and its one-line reply. */
function ask(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    socket.setTimeout(1_000, () => socket.destroy());
    socket.on("connect", () => socket.write(`${command}\r\n`));
    socket.on("data", (chunk) => {
      reply += chunk;
      if (reply.includes("\r\n")) socket.end();
    });
    socket.on("close", () => resolve(reply));
    socket.on("error", reject);
  });
}
