// The store's schema and statements, written once in SQL both SQLite and PostgreSQL take ($n placeholders).
export const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, spam INTEGER NOT NULL, due BIGINT,
       received BIGINT NOT NULL, claimed_until BIGINT, body TEXT NOT NULL)`,
    "CREATE INDEX IF NOT EXISTS messages_due ON messages (due)",
    "CREATE TABLE IF NOT EXISTS records (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS used_proofs (hash TEXT PRIMARY KEY, expires BIGINT NOT NULL)",
  ],
  [
    "ALTER TABLE messages ADD COLUMN claims BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE messages ADD COLUMN kept INTEGER NOT NULL DEFAULT 1",
    "UPDATE messages SET claims = 1 WHERE claimed_until IS NOT NULL",
    "ALTER TABLE records ADD COLUMN version BIGINT NOT NULL DEFAULT 0",
  ],
  [
    `CREATE TABLE IF NOT EXISTS seen_texts (key TEXT NOT NULL, client TEXT NOT NULL, expires BIGINT NOT NULL,
       PRIMARY KEY (key, client))`,
    // rate-limiter-flexible's own table, shared by the replicas on PostgreSQL (one process keeps its limits in memory).
    "CREATE TABLE IF NOT EXISTS rate_limits (key VARCHAR(255) PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire BIGINT)",
  ],
];

const COLUMNS = "id, spam, due, received, claimed_until, claims, kept, body";
export const SQL = {
  get: "SELECT body, claimed_until FROM messages WHERE id = $1",
  list: "SELECT body, claimed_until FROM messages ORDER BY received",
  due: `SELECT body, claimed_until FROM messages
        WHERE due <= $1 AND (claimed_until IS NULL OR claimed_until < $1) ORDER BY received`,
  unclaimed: `SELECT body, claimed_until FROM messages
              WHERE claimed_until IS NULL OR claimed_until < $1 ORDER BY received`,
  nextDue: "SELECT MIN(CASE WHEN claimed_until > due THEN claimed_until ELSE due END) AS due FROM messages",
  count: "SELECT COUNT(*) AS n FROM messages WHERE spam = $1",
  oldestSpam: "SELECT body, claimed_until FROM messages WHERE spam = 1 ORDER BY received LIMIT 1",
  add: `INSERT INTO messages (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
  put: `INSERT INTO messages (${COLUMNS}) VALUES ($1, $2, $3, $4, NULL, 0, 1, $5) ON CONFLICT (id) DO UPDATE
        SET spam = excluded.spam, due = excluded.due, claimed_until = NULL, claims = 0, kept = 1, body = excluded.body`,
  place: `INSERT INTO messages (${COLUMNS})
          SELECT $1, CAST($2 AS INTEGER), CAST($3 AS BIGINT), CAST($4 AS BIGINT), NULL, 0, 1, $5
          WHERE (SELECT COUNT(*) FROM messages WHERE spam = $2 AND kept = 1 AND id <> $1) < $6
          ON CONFLICT (id) DO UPDATE
          SET spam = excluded.spam, due = excluded.due, claimed_until = NULL, claims = 0, kept = 1, body = excluded.body`,
  remove: "DELETE FROM messages WHERE id = $1",
  claim: `UPDATE messages SET claimed_until = $1, claims = claims + 1
          WHERE id = $2 AND (claimed_until IS NULL OR claimed_until < $3) RETURNING body, claims`,
  read: "SELECT value, version FROM records WHERE name = $1",
  insertRecord: "INSERT INTO records (name, value, version) VALUES ($1, $2, 0) ON CONFLICT (name) DO NOTHING",
  updateRecord: "UPDATE records SET value = $1, version = version + 1 WHERE name = $2 AND version = $3",
  probe: `INSERT INTO records (name, value, version) VALUES ('store', '{}', 0)
          ON CONFLICT (name) DO UPDATE SET version = records.version + 1`,
  proof: `INSERT INTO used_proofs (hash, expires) VALUES ($1, $2)
          ON CONFLICT (hash) DO UPDATE SET expires = excluded.expires WHERE used_proofs.expires < $3`,
  sweepProofs: "DELETE FROM used_proofs WHERE expires < $1",
  see: `INSERT INTO seen_texts (key, client, expires) VALUES ($1, $2, $3)
        ON CONFLICT (key, client) DO UPDATE SET expires = excluded.expires`,
  others: "SELECT COUNT(*) AS n FROM seen_texts WHERE key = $1 AND client <> $2 AND expires >= $3",
  sweepSeen: "DELETE FROM seen_texts WHERE expires < $1",
};
