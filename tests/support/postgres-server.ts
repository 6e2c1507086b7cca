// A real PostgreSQL server on 127.0.0.1 for the tests: one per run (vitest's global setup, its URL provided to
// the tests), a throwaway one a test may stop and start, and freshDatabase() for a database of a test's own.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { onFreePort } from "./free-port";

declare module "vitest" {
  export interface ProvidedContext {
    /** postgres://user:password@127.0.0.1:port, without a database: freshDatabase() adds one. */
    postgresUrl: string;
  }
}

export type PostgresServer = {
  /** The server's URL without a database. */
  url: string;
  /** Stops it (pg_ctl's fast mode: connections are ended). */
  stop: () => Promise<void>;
  /** Starts it again on the same port and data folder. */
  start: () => Promise<void>;
  /** Stops it and removes its folder. */
  remove: () => Promise<void>;
};

const USER = "portfolio";
const ROOT = process.getuid?.() === 0;

/** PostgreSQL's programs: on the PATH, or in Debian's /usr/lib/postgresql/<major>/bin, the newest major. */
function binaries(): string {
  const onPath = (process.env.PATH ?? "").split(":").find((dir) => dir && existsSync(join(dir, "initdb")));
  if (onPath) return onPath;
  const majors = existsSync("/usr/lib/postgresql")
    ? readdirSync("/usr/lib/postgresql")
        .filter((major) => existsSync(join("/usr/lib/postgresql", major, "bin/initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0]) return join("/usr/lib/postgresql", majors[0], "bin");
  throw new Error(
    "PostgreSQL is not installed (no initdb on the PATH nor in /usr/lib/postgresql/*/bin): " +
      "run `apt-get install -y postgresql` (bash .ci/run installs it).",
  );
}

/** The server refuses to run as root: as root, its programs run as the `postgres` user, on a folder it owns. */
function run(bin: string, program: string, args: string[]) {
  const [command, all] = ROOT
    ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]]
    : [join(bin, program), args];
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, all, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${program} exited with ${code}:\n${output}`)),
    );
  });
}

/**
 * A PostgreSQL server on 127.0.0.1 and a free port, its data and socket in a temporary folder, with a
 * password-protected user; durability is off, since the folder goes with the run.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = binaries();
  const dir = mkdtempSync(join(process.env.TESTS_TMPDIR ?? tmpdir(), "portfolio-postgres-"));
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  const password = randomBytes(12).toString("hex");
  writeFileSync(join(dir, "password"), password, { mode: 0o600 });
  if (ROOT) execFileSync("chown", ["-R", "postgres:postgres", dir]);
  await run(bin, "initdb", [
    "--no-sync",
    "--auth=scram-sha-256",
    `--username=${USER}`,
    `--pwfile=${join(dir, "password")}`,
    "--encoding=UTF8",
    "--locale=C",
    data,
  ]);
  let port = 0;
  const start = async () => {
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    await run(bin, "pg_ctl", ["start", "--wait", "--timeout=60", "-D", data, "-l", log, "-o", options]).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${existsSync(log) ? readFileSync(log, "utf8") : ""}`);
      },
    );
  };
  const stop = () => run(bin, "pg_ctl", ["stop", "--wait", "--mode=fast", "-D", data]);
  await onFreePort(async (free) => {
    port = free;
    await start();
  }, /already in use|could not create any TCP\/IP sockets/i);
  return {
    url: `postgres://${USER}:${password}@127.0.0.1:${port}`,
    start,
    stop,
    async remove() {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Vitest's global setup: one server for the whole run, each project told its URL. */
export default async function postgresForTheRun({ provide }: TestProject) {
  // Each Vitest project runs its global setup: the first starts the server, and its teardown comes last.
  const started = process.env.TESTS_POSTGRES_URL;
  if (started) {
    provide("postgresUrl", started);
    return;
  }
  const server = await startPostgresServer();
  process.env.TESTS_POSTGRES_URL = server.url;
  provide("postgresUrl", server.url);
  return () => server.remove();
}

/** A new, empty database on `serverUrl` (the run's server by default), for one test or one file: its URL. */
export async function freshDatabase(serverUrl?: string): Promise<string> {
  // Loaded here, in a test: vitest's runtime is not there for the global setup above.
  const base = serverUrl ?? (await import("vitest")).inject("postgresUrl");
  const name = `test_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: `${base}/postgres` });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return `${base}/${name}`;
}

/** One statement on `database` in a session of the test's own. */
export async function queryDatabase<T extends pg.QueryResultRow>(
  database: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
