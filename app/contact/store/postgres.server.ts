// The store on a PostgreSQL database (DATABASE_URL), shared by every replica and the owner's CLI: runs the
// port's statements through pg's Pool, migrates under an advisory lock, waits for a database not up yet.
import pg from "pg";
import { MIGRATIONS } from "./statements.server";
import { createStore, StoreError, type Sql, type Store, type StoreEvent } from "./store.server";

/** How long opening a connection may take; then the statement fails (running) or is tried again (at start). */
const CONNECT_TIMEOUT_MS = 5_000;
/** How long a statement waits for another session's lock: as long as the SQLite file waits. */
const LOCK_TIMEOUT_MS = 5_000;
const STATEMENT_TIMEOUT_MS = 10_000;
/** A session left inside a transaction is ended by the server, so its locks go with it. */
const IDLE_IN_TRANSACTION_MS = 10_000;
/** How long close() waits for the connections in use to come back. */
const END_WAIT_MS = 5_000;
/** At start, a database that cannot be reached is tried again after pauses doubling up to this. */
const RETRY_MAX_MS = 5_000;
/** One key for every instance: whoever holds it migrates, the others wait their turn. */
const MIGRATION_LOCK = 6_300_063;

/** SQLSTATEs of statements that met another at once: run again, within the lock bound. */
const SERIALIZATION_FAILURE = "40001";
const DEADLOCK = "40P01";
const LOCK_NOT_AVAILABLE = "55P03";
const sqlState = (error: unknown) => (error as { code?: unknown }).code;
/** Unreachable, starting up, shutting down, out of connections, another instance migrating: waited for at start. */
const transient = (error: unknown) => {
  const code = sqlState(error);
  // A system error: refused, not resolved (yet), reset, unreachable.
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return true;
  if (typeof code === "string")
    return /^(08|53|57)/.test(code) || [SERIALIZATION_FAILURE, DEADLOCK, LOCK_NOT_AVAILABLE].includes(code);
  // pg's own: a connection that timed out or ended; anything else (a login it cannot make) is no wait.
  return /timeout|terminated/i.test((error as Error).message);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The database in the owner's words, without user or password. */
function whereIs(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreError("cannot open the PostgreSQL database: DATABASE_URL is not a URL");
  }
  if (!/^postgres(ql)?:$/.test(parsed.protocol))
    throw new StoreError("cannot open the PostgreSQL database: DATABASE_URL is not a postgres:// URL");
  const name = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username);
  return `the PostgreSQL database ${name} at ${parsed.hostname || "localhost"}:${parsed.port || 5432}`;
}

/**
 * Each step once, in a transaction of its own, numbered in schema_migrations; under an advisory lock, so
 * instances starting at once take turns. A database with a newer schema is refused.
 */
async function migrate(pool: pg.Pool) {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)");
      const { rows } = await client.query<{ version: number }>(
        "SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations",
      );
      const version = rows[0]?.version ?? 0;
      if (version > MIGRATIONS.length)
        throw new StoreError(
          `it was written by a newer version (schema ${version}; this one knows ${MIGRATIONS.length})`,
        );
      for (const [index, step] of MIGRATIONS.entries()) {
        if (index < version) continue;
        await client.query("BEGIN");
        try {
          for (const statement of step) await client.query(statement);
          await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [index + 1]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        }
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

/**
 * The store in the database at `url`. One that cannot be reached yet is waited for, said once (with `wait`
 * false, the owner's CLI, it is a StoreError); a bad URL,
 * a refused login, a missing database or a newer schema throws a StoreError in one line, without the password.
 */
export async function openPostgresStore(
  url: string,
  log: (event: StoreEvent) => void,
  { wait = true }: { wait?: boolean } = {},
): Promise<Store> {
  const where = whereIs(url);
  const pool = new pg.Pool({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    lock_timeout: LOCK_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    // Each statement alone is serializable: two places taken at once cannot both see room for one.
    options: "-c default_transaction_isolation=serializable",
  });
  // An idle connection the server ended (a restart, a failover): said once, and the next statement reconnects.
  let lost = false;
  pool.on("error", (error) => {
    if (lost) return;
    lost = true;
    log({ outcome: "store_connection_lost", cause: error.message });
  });

  for (let pause = 250, waited = false; ; pause = Math.min(pause * 2, RETRY_MAX_MS)) {
    try {
      await migrate(pool);
      break;
    } catch (error) {
      if (error instanceof StoreError || !transient(error) || !wait) {
        await pool.end().catch(() => undefined);
        const why = transient(error) ? "cannot reach" : "cannot open";
        throw new StoreError(`${why} ${where}: ${(error as Error).message}`, { cause: error });
      }
      if (!waited) log({ outcome: "store_waiting", where, cause: (error as Error).message });
      waited = true;
      await sleep(pause);
    }
  }

  /** Statements that met another at once are run again, in short pauses, up to the lock bound. */
  const patiently = async <T>(work: () => Promise<T>): Promise<T> => {
    const until = Date.now() + LOCK_TIMEOUT_MS;
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      try {
        const result = await work();
        lost = false;
        return result;
      } catch (error) {
        const code = sqlState(error);
        const again = code === SERIALIZATION_FAILURE || code === DEADLOCK;
        if (!again || Date.now() + pause > until) throw error;
        await sleep(pause * (0.5 + Math.random()));
      }
    }
  };
  const sql: Sql = {
    run: (statement, params) => patiently(async () => (await pool.query(statement, params)).rowCount ?? 0),
    all: (statement, params) => patiently(async () => (await pool.query(statement, params)).rows),
    recover() {
      // Every statement takes a connection from the pool, made anew when the last one was lost.
    },
    backup: () =>
      Promise.reject(new Error("a PostgreSQL database is copied with pg_dump, not by this server")),
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise((resolve) => (timer = setTimeout(resolve, END_WAIT_MS)));
      await Promise.race([pool.end().catch(() => undefined), bound]);
      clearTimeout(timer);
    },
  };
  const store = createStore(sql, { where, log });
  await store.probe();
  return store;
}
