/**
 * The history database's tables, as a list of migrations: the one place where the schema is
 * written. Each is applied once, in version order, inside the writers' lock, and recorded in
 * `schema_migrations`; a database is at every version in that table. Other features add their
 * own tables by appending here (issue 22's link-health results, for example), each with a new
 * version number; a version once released never changes.
 *
 * SQL is written once for SQLite and PostgreSQL. Two words differ and are spelled as tokens:
 * `{{id}}` (an integer key the database assigns) and `{{compact}}` (SQLite's WITHOUT ROWID, for
 * tables whose primary key is all they are looked up by: half the size on disk);
 * `{{application}}` is the mark that tells linkctl's databases from others.
 */
import { ConfigError } from '../errors.js';
import { APPLICATION, NoHistoryError, type Db, type Dialect } from './db.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'click history: sources, snapshots, items, counts and details',
    sql: `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('application', '{{application}}');

-- One account on one server: snapshots from a laptop and from CI of the same account share it.
CREATE TABLE sources (
  id {{id}},
  base_url TEXT NOT NULL,
  account TEXT NOT NULL,
  name TEXT,
  UNIQUE (base_url, account)
);

-- origin: 'api' (read from the server) or 'import:<tool>' (totals from another shortener's export).
-- complete: every record of the kinds read is in it, so an item missing from it is gone.
CREATE TABLE snapshots (
  id {{id}},
  source_id INTEGER NOT NULL REFERENCES sources (id),
  taken_at TEXT NOT NULL,
  profile TEXT,
  origin TEXT NOT NULL,
  complete INTEGER NOT NULL,
  links INTEGER NOT NULL,
  qrs INTEGER NOT NULL,
  campaigns INTEGER NOT NULL,
  changed INTEGER NOT NULL
);
CREATE INDEX snapshots_by_source ON snapshots (source_id, taken_at);

-- A link, QR code or campaign of a source; remote_id is the server's id (NULL for a record
-- imported from another tool until a snapshot finds it by alias). Names are the latest seen.
CREATE TABLE items (
  id {{id}},
  source_id INTEGER NOT NULL REFERENCES sources (id),
  kind TEXT NOT NULL,
  remote_id BIGINT,
  alias TEXT,
  label TEXT,
  url TEXT,
  campaign BIGINT,
  UNIQUE (source_id, kind, remote_id)
);
CREATE INDEX items_by_alias ON items (source_id, kind, alias);

-- An item's totals at a snapshot, written only when they differ from its previous row: an
-- item's total at any snapshot is its latest row at or before it. clicks NULL: the item was
-- gone from the account at that snapshot. For QR codes clicks are scans, for campaigns views.
CREATE TABLE counts (
  item_id INTEGER NOT NULL REFERENCES items (id),
  snapshot_id INTEGER NOT NULL REFERENCES snapshots (id),
  clicks BIGINT,
  unique_clicks BIGINT,
  PRIMARY KEY (item_id, snapshot_id)
){{compact}};

-- stats snapshot --details N: the server's top countries, referrers, browsers and systems of a
-- link. detail_reads says they were read at that snapshot; detail_counts holds them when they
-- differ from the link's previous read (like counts).
CREATE TABLE detail_reads (
  item_id INTEGER NOT NULL REFERENCES items (id),
  snapshot_id INTEGER NOT NULL REFERENCES snapshots (id),
  changed INTEGER NOT NULL,
  PRIMARY KEY (item_id, snapshot_id)
){{compact}};
CREATE TABLE detail_counts (
  item_id INTEGER NOT NULL REFERENCES items (id),
  snapshot_id INTEGER NOT NULL REFERENCES snapshots (id),
  dimension TEXT NOT NULL,
  name TEXT NOT NULL,
  count BIGINT NOT NULL,
  PRIMARY KEY (item_id, snapshot_id, dimension, name)
){{compact}};

-- For SQL users and BI tools: every stored change with the difference from the one before.
CREATE VIEW click_changes AS
SELECT src.base_url, src.account, i.kind, i.remote_id, i.alias, i.label, s.taken_at, s.origin,
       c.clicks, c.unique_clicks,
       c.clicks - lag(c.clicks) OVER (PARTITION BY c.item_id ORDER BY c.snapshot_id) AS clicks_change
FROM counts c
JOIN items i ON i.id = c.item_id
JOIN sources src ON src.id = i.source_id
JOIN snapshots s ON s.id = c.snapshot_id;
`,
  },
  {
    // Issue 22 (src/check/store.ts): each `linkctl check` run, kept per source like snapshots,
    // so that `--since-last` works from a laptop's file or a team's PostgreSQL alike. The
    // latest 30 runs of a source are kept (deleted by the code, not by a cascade: SQLite
    // enforces no foreign keys unless asked).
    version: 20,
    name: 'link health: check runs and their results',
    sql: `
-- options: JSON {qr, details, expiringMs}; profile: the linkctl profile that ran it (for people).
CREATE TABLE check_runs (
  id {{id}},
  source_id INTEGER NOT NULL REFERENCES sources (id),
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  profile TEXT,
  options TEXT NOT NULL
);
CREATE INDEX check_runs_by_source ON check_runs (source_id, id);

-- One row per checked subject, in the run's order (seq). subject: link:12, link:12 geo:canada,
-- qr:3 (what --since-last compares by); chain: JSON [{url, code}]; findings: JSON [{kind, detail}].
CREATE TABLE check_results (
  run_id BIGINT NOT NULL REFERENCES check_runs (id),
  seq INTEGER NOT NULL,
  subject TEXT NOT NULL,
  link BIGINT,
  qr BIGINT,
  target TEXT,
  destination TEXT NOT NULL,
  status TEXT NOT NULL,
  code INTEGER,
  chain TEXT NOT NULL,
  error TEXT,
  findings TEXT NOT NULL,
  checked_at TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
){{compact}};
`,
  },
  {
    // Issue 30: a destination has one status and flags beside it (insecure, slow): JSON ["insecure"].
    // Rows of older runs have none ([]); their status `insecure` (a status then) is read as it was stored.
    version: 21,
    name: 'link health: flags beside each result\'s status',
    sql: `
ALTER TABLE check_results ADD COLUMN flags TEXT NOT NULL DEFAULT '[]';
`,
  },
  {
    // Issue 40 (`linkctl listen`): the product's webhooks, one row per event, stored before the
    // post is answered. A visit is exact where events cover a period (no spreading, hours and
    // breakdowns per visit). event_id is the id printed and forwarded (unique: a replay stores
    // nothing twice); at is UTC (ISO 8601, the server's local time converted); item_id is the
    // link's item when the short URL names one the history knows (NULL until then: alias and
    // short_url always name it). kind: 'link.created' or 'link.clicked'.
    version: 22,
    name: 'live events: the product\'s webhooks, one row per event',
    sql: `
CREATE TABLE events (
  id {{id}},
  source_id INTEGER NOT NULL REFERENCES sources (id),
  event_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  at TEXT NOT NULL,
  received_at TEXT NOT NULL,
  item_id BIGINT,
  short_url TEXT NOT NULL,
  alias TEXT,
  long_url TEXT,
  country TEXT,
  city TEXT,
  referrer TEXT,
  os TEXT,
  browser TEXT
);
CREATE INDEX events_by_source ON events (source_id, kind, at);
CREATE INDEX events_by_alias ON events (source_id, alias, at);

-- A run of linkctl listen: from its start to the last moment it was known alive (a heartbeat,
-- and each stored batch). Stats count events exactly over these spans (src/history/events.ts).
CREATE TABLE listen_runs (
  id {{id}},
  source_id INTEGER NOT NULL REFERENCES sources (id),
  started_at TEXT NOT NULL,
  alive_at TEXT NOT NULL
);
CREATE INDEX listen_runs_by_source ON listen_runs (source_id, started_at);

-- The durable outbox of --forward-to: per target, the last event (events.id, in arrival order)
-- it answered 2xx for; a restart sends on from there (at least once).
CREATE TABLE event_forwards (
  source_id INTEGER NOT NULL REFERENCES sources (id),
  target TEXT NOT NULL,
  delivered BIGINT NOT NULL,
  PRIMARY KEY (source_id, target)
);
`,
  },
  {
    // Issues 41 and 44: the ledger, every write linkctl sent (src/history/ledger.ts). seq is given
    // by the writer under the writers' lock (1, 2, 3, ...: a removed entry leaves a gap), and each
    // entry holds the hash of the one before (prev_hash) and its own (hash, SHA-256 over the
    // canonical JSON of its columns and prev_hash): an edited or removed entry breaks the chain.
    // before_json / after_json: the record's fields as linkctl knew them, secrets left out.
    // server: the API's base URL ('sandbox' for the built-in one); outcome: done, failed, unknown.
    version: 23,
    name: 'ledger: every write linkctl sent, in a hash chain',
    sql: `
CREATE TABLE ledger (
  seq BIGINT PRIMARY KEY,
  at TEXT NOT NULL,
  profile TEXT,
  server TEXT NOT NULL,
  command TEXT NOT NULL,
  via TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  resource TEXT NOT NULL,
  resource_id TEXT,
  name TEXT,
  before_json TEXT,
  after_json TEXT,
  outcome TEXT NOT NULL,
  detail TEXT,
  override TEXT,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX ledger_by_record ON ledger (server, resource, resource_id, seq);
`,
  },
  {
    // Issue 51: a write made with --as-user: the user it was made as (`7 <jane@example.com>`),
    // beside the profile of the admin who made it. NULL for every other write; an entry's hash
    // covers it only when it is set, so the entries written before keep their hashes.
    version: 24,
    name: 'ledger: the user a write was made as (--as-user)',
    sql: `
ALTER TABLE ledger ADD COLUMN as_user TEXT;
`,
  },
  {
    // Issue 52: listen ties each event to its link's item by short URL (else alias), once per
    // link a run. With no index on url, that lookup read every link item of the account: 0.3 ms
    // of the main thread a post in a burst over 5,000 links of a 20,000-link history (13 times
    // the rest of its work), and more with the account's size. And events_by_alias goes: no
    // query reads events by alias, and keeping it cost each stored event 5 µs of the main
    // thread's ~35 (visits over 2,000 links).
    version: 25,
    name: 'items: found by short URL; events: no alias index',
    sql: `
CREATE INDEX IF NOT EXISTS items_by_url ON items (source_id, kind, url);
DROP INDEX IF EXISTS events_by_alias;
`,
  },
];

const TOKENS: Record<Dialect, Record<string, string>> = {
  sqlite: { id: 'INTEGER PRIMARY KEY', compact: ' WITHOUT ROWID', application: APPLICATION },
  postgres: { id: 'BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY', compact: '', application: APPLICATION },
};

export function dialectSql(sql: string, dialect: Dialect): string {
  return sql.replace(/\{\{(\w+)\}\}/g, (_, token: string) => {
    const value = TOKENS[dialect][token];
    if (value === undefined) throw new Error(`internal: unknown schema token {{${token}}}`);
    return value;
  });
}

const BOOKKEEPING = `
CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`;

/** Versions applied to the database; empty for a new one. */
export async function appliedVersions(db: Db): Promise<number[]> {
  const rows = await db.all(db.dialect === 'sqlite'
    ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    : "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_migrations'");
  if (Number(rows[0]?.[0]) === 0) return [];
  return (await db.all('SELECT version FROM schema_migrations ORDER BY version')).map((r) => Number(r[0]));
}

/**
 * Brings the database to every version in `migrations`, inside the writers' lock (so two first
 * runs at once create the tables once). A database with versions this linkctl does not know was
 * written by a newer one: refused, since its tables may mean more than this code knows.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const known = new Set(migrations.map((m) => m.version));
  if (known.size !== migrations.length) throw new Error('internal: two migrations share a version');
  const check = (applied: number[]) => {
    const unknown = applied.filter((v) => !known.has(v));
    if (unknown.length) {
      throw new ConfigError(`the click-history database ${db.where} has schema versions this linkctl does not know (${unknown.join(', ')}): it was written by a newer linkctl`, 'upgrade linkctl, or give another database with --db');
    }
  };
  const before = await appliedVersions(db);
  check(before);
  if (migrations.every((m) => before.includes(m.version))) return [];
  return db.write(async () => {
    const applied = await appliedVersions(db); // again, under the lock: another process may have been first
    check(applied);
    const done: number[] = [];
    if (applied.length === 0) await db.exec(BOOKKEEPING);
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.includes(migration.version)) continue;
      await db.exec(dialectSql(migration.sql, db.dialect));
      await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [migration.version, migration.name, new Date().toISOString()]);
      done.push(migration.version);
    }
    return done;
  });
}

/** The migrations whose tables the readers (`stats show`, `top`, `report`) read: the click history itself. */
export const READERS_NEED = [1];

/**
 * A reader's check, which writes nothing: a database from a newer linkctl is refused (as by
 * `migrate`); one without the tables readers read is refused with the command that adds them;
 * an older one that has them is read as it is (link health's tables, for one, are not needed).
 */
export async function checkReadable(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<void> {
  const applied = await appliedVersions(db);
  const known = new Set(migrations.map((m) => m.version));
  const unknown = applied.filter((v) => !known.has(v));
  if (unknown.length) {
    throw new ConfigError(`the click-history database ${db.where} has schema versions this linkctl does not know (${unknown.join(', ')}): it was written by a newer linkctl`, 'upgrade linkctl, or give another database with --db');
  }
  if (applied.length === 0) {
    throw new NoHistoryError(`no click history in ${db.where} yet (it has no tables)`, 'run `linkctl stats snapshot` first (and again later: history is the differences between snapshots)');
  }
  const missing = READERS_NEED.filter((v) => !applied.includes(v));
  if (missing.length) {
    throw new ConfigError(`the click-history database ${db.where} needs migrating before it can be read (schema versions ${missing.join(', ')} missing); reading never changes it`, 'run `linkctl stats migrate` (with the same --db) once, then read it');
  }
}

/** Whether the database has every table of `migrations` (a reader refuses one that needs migrating rather than writing). */
export async function isCurrent(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<boolean> {
  const applied = await appliedVersions(db);
  return migrations.every((m) => applied.includes(m.version));
}
