// The store on a PostgreSQL database (DATABASE_URL), shared by every replica and the owner's CLI (decision 063).
import pg from "pg";
import { MIGRATIONS } from "./statements.server";
import {
  createStore,
  patiently,
  sleep,
  StoreError,
  type Sql,
  type Store,
  type StoreEvent,
} from "./store.server";

const CONNECT_TIMEOUT_MS = 5_000;
const LOCK_TIMEOUT_MS = 5_000;
const STATEMENT_TIMEOUT_MS = 10_000;
const IDLE_IN_TRANSACTION_MS = 10_000;
const END_WAIT_MS = 5_000;
const RETRY_MAX_MS = 5_000;
const MIGRATION_LOCK = 6_300_063;

const SERIALIZATION_FAILURE = "40001";
const DEADLOCK = "40P01";
const LOCK_NOT_AVAILABLE = "55P03";
const sqlState = (error: unknown) => (error as { code?: unknown }).code;
const conflict = (error: unknown) => [SERIALIZATION_FAILURE, DEADLOCK].includes(sqlState(error) as string);
/** Unreachable, starting up, shutting down, out of connections, another instance migrating: waited for at start. */
const transient = (error: unknown) => {
  const code = sqlState(error);
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return true;
  if (typeof code === "string")
    return /^(08|53|57)/.test(code) || [SERIALIZATION_FAILURE, DEADLOCK, LOCK_NOT_AVAILABLE].includes(code);
  return /timeout|terminated/i.test((error as Error).message);
};
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

/** A database not reached yet is waited for (with `wait` false, the owner's CLI, it is a StoreError). */
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

  const query = (statement: string, params: unknown[]) =>
    patiently(
      async () => {
        const result = await pool.query(statement, params);
        lost = false;
        return result;
      },
      { again: conflict, boundMs: LOCK_TIMEOUT_MS, jitter: true },
    );
  const sql: Sql = {
    run: async (statement, params) => (await query(statement, params)).rowCount ?? 0,
    all: async (statement, params) => (await query(statement, params)).rows,
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
