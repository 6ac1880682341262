-- PostgreSQL twin of ../0001_settings.sql: the same table, in the types the
-- shared store SQL expects (see 0002 for the mapping). `updated_at` defaults
-- to the text SQLite's strftime('%Y-%m-%dT%H:%M:%fZ', 'now') writes: UTC,
-- milliseconds, a trailing Z.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
);
