// The store on one SQLite file in OUTBOX_DIR (node:sqlite, WAL), shared by the server and the owner's CLI.
import { accessSync, chmodSync, closeSync, constants, mkdirSync, openSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { MIGRATIONS } from "./statements.server";
import { createStore, patiently, StoreError, type Sql, type Store, type StoreEvent } from "./store.server";

export const DATABASE_FILE = "outbox.sqlite";
/** Loaded when a store opens, not when this module does: an older Node then says which it needs (server/node-version.ts). */
const sqlite = () => process.getBuiltinModule("node:sqlite");

const LOCK_WAIT_MS = 5_000;
const OPEN_WAIT_MS = 5_000;
const CHECKPOINT_AFTER_MS = 1_000;

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_READONLY = 8;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;
const code = (error: unknown) => ((error as { errcode?: number }).errcode ?? 0) & 0xff;
const busy = (error: unknown) => code(error) === SQLITE_BUSY || code(error) === SQLITE_LOCKED;

export function walMode(db: Pick<DatabaseSync, "exec">, boundMs = OPEN_WAIT_MS) {
  const until = Date.now() + boundMs;
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
      return;
    } catch (error) {
      if (code(error) !== SQLITE_BUSY || Date.now() > until) throw error;
      Atomics.wait(PAUSE, 0, 0, 20);
    }
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

const schemaOf = (db: DatabaseSync) =>
  (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;

// A current file is only read, so one that may not be written still opens (and refuses writes).
function migrate(db: DatabaseSync) {
  const newer = (version: number) =>
    new Error(`it was written by a newer version (schema ${version}; this one knows ${MIGRATIONS.length})`);
  if (schemaOf(db) > MIGRATIONS.length) throw newer(schemaOf(db));
  if (schemaOf(db) === MIGRATIONS.length) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    const version = schemaOf(db);
    if (version > MIGRATIONS.length) throw newer(version);
    for (const step of MIGRATIONS.slice(version)) for (const statement of step) db.exec(statement);
    db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`);
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

function whyNot(file: string, error: unknown): string {
  const user = userInfo().username;
  if (code(error) === SQLITE_NOTADB) return "it is not an SQLite database";
  const problem = (target: string, mode: number) => {
    try {
      accessSync(target, mode);
      return null;
    } catch (denied) {
      return (denied as NodeJS.ErrnoException).code ?? "EACCES";
    }
  };
  const folder = path.dirname(file);
  const inFolder = problem(folder, constants.R_OK | constants.W_OK | constants.X_OK);
  if (inFolder === "EACCES" || inFolder === "EPERM")
    return `user ${user} may not write in the folder ${folder}`;
  if (inFolder === "EROFS") return `the folder ${folder} is on a read-only file system`;
  if (inFolder) return `the folder ${folder} cannot be made or used (${inFolder})`;
  if (problem(file, constants.R_OK)) return `user ${user} may not read it`;
  if (code(error) === SQLITE_CANTOPEN || (error as NodeJS.ErrnoException).code === "EACCES")
    return `user ${user} may not open it`;
  return (error as Error).message;
}

function createOnce(file: string) {
  try {
    closeSync(openSync(file, "wx", 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

function connect(file: string): DatabaseSync {
  const db = new (sqlite().DatabaseSync)(file, { timeout: OPEN_WAIT_MS });
  try {
    walMode(db);
    migrate(db);
    db.exec("PRAGMA busy_timeout = 0");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export async function openSqliteStore(outboxDir: string, log: (event: StoreEvent) => void): Promise<Store> {
  const file = path.join(outboxDir, DATABASE_FILE);
  let db: DatabaseSync;
  try {
    mkdirSync(outboxDir, { recursive: true, mode: 0o700 });
    // Visitors' addresses are personal data: owner-only; the WAL and its index take the file's mode.
    createOnce(file);
    if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
    db = connect(file);
  } catch (error) {
    throw new StoreError(`cannot open ${file}: ${whyNot(file, error)}`, { cause: error });
  }

  const statements = new Map<string, StatementSync>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql.replace(/\$(\d+)/g, "?$1"));
      statements.set(sql, statement);
    }
    return statement;
  };
  let checkpoint: NodeJS.Timeout | undefined;
  const foldLog = () => {
    try {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // Busy, or the disk full: the next write schedules it again.
    }
  };
  let readOnly = false;
  const unlocked = <T>(work: () => T) =>
    patiently(work, { again: busy, boundMs: LOCK_WAIT_MS }).catch((error: unknown) => {
      readOnly ||= code(error) === SQLITE_READONLY;
      throw error;
    });
  const wrote = (statement: string) => {
    if (/^\s*SELECT/i.test(statement)) return;
    clearTimeout(checkpoint);
    checkpoint = setTimeout(foldLog, CHECKPOINT_AFTER_MS).unref();
  };
  const sql: Sql = {
    async run(statement, params) {
      const changes = await unlocked(() => prepared(statement).run(...(params as never[])).changes);
      wrote(statement);
      return Number(changes);
    },
    async all(statement, params) {
      const rows = await unlocked(() => prepared(statement).all(...(params as never[])));
      wrote(statement);
      return rows as never;
    },
    recover() {
      // A file opened read-only stays so: once it may be written again, it is opened anew.
      if (!readOnly) return;
      try {
        const fresh = connect(file);
        db.close();
        db = fresh;
        statements.clear();
        readOnly = false;
      } catch {
        // Still refused: the next probe tries again.
      }
    },
    async backup(copy) {
      // Made owner-only and empty first: VACUUM INTO fills an empty file, and the copy is never readable by others.
      closeSync(openSync(copy, "wx", 0o600));
      await unlocked(() => prepared("VACUUM INTO $1").run(copy));
    },
    async close() {
      clearTimeout(checkpoint);
      foldLog();
      db.close();
    },
  };
  const store = createStore(sql, { where: file, log });
  await store.probe();
  return store;
}
