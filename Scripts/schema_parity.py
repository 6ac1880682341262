#!/usr/bin/env python3
"""Schema parity: Migrations/*.sql on SQLite against Migrations/postgres/*.sql.

Both sets are applied to fresh databases, each file in its own transaction as
the Migrator runs them, and what the stores' one text of SQL relies on is
compared table by table: columns and their types, NOT NULL, defaults,
generated ids, primary keys, unique sets, foreign keys (target and ON DELETE),
indexes, how many CHECKs, triggers (timing, event, UPDATE OF columns) and the
seed rows themselves. Every difference is printed; the exit status is 1 when
there is one, 0 when the two agree, 2 when the check could not run.

PostgreSQL: the server named by --database or KITH_TEST_DATABASE (a
postgres:// URL or a libpq connection string), in a schema of its own that is
dropped afterwards; without one, a throwaway cluster is started in a
temporary directory (as `nobody` when run as root, since initdb refuses root)
and stopped again. Needs only Python's standard library and psql.

    python3 Scripts/schema_parity.py [--migrations DIR] [--database URL]
"""

import argparse
import glob
import json
import os
import re
import secrets
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile

# SQLite's declared type → PostgreSQL's, as Migrations/postgres/0002 maps them.
TYPE_MAP = {"INTEGER": "bigint", "TEXT": "text", "BLOB": "bytea", "REAL": "double precision"}
ON_DELETE = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}


class Unavailable(Exception):
    """PostgreSQL cannot be reached or started: the check did not run."""


# MARK: - SQLite


def apply_sqlite(files):
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    for path in files:
        with open(path, encoding="utf-8") as handle:
            sql = handle.read()
        db.execute("BEGIN")
        db.execute("PRAGMA defer_foreign_keys = ON")
        try:
            for statement in split_sqlite(sql):
                db.execute(statement)
        except sqlite3.Error as error:
            raise SystemExit(f"{os.path.basename(path)} fails on SQLite: {error}")
        db.execute("COMMIT")
    return db


def split_sqlite(sql):
    """Statements one at a time: executescript would COMMIT the transaction."""
    statement = ""
    for line in sql.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            if statement.strip():
                yield statement
            statement = ""
    if statement.strip() and strip_comments(statement).strip():
        yield statement


def strip_comments(sql):
    """SQL without comments or string literals, for counting keywords."""
    return re.sub(r"--[^\n]*|'(?:[^']|'')*'", " ", sql)


def sqlite_schema(db):
    tables = {}
    names = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    for name in names:
        sql = db.execute("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (name,)).fetchone()[0]
        without_rowid = re.search(r"WITHOUT\s+ROWID", strip_comments(sql), re.I) is not None
        info = db.execute(f'SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)', (name,)).fetchall()
        pk = [c[0] for c in sorted((c for c in info if c[4]), key=lambda c: c[4])]
        fks = {}
        for fk_id, _seq, target, source, to, _upd, on_delete, _match in db.execute(
                "SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq", (name,)):
            entry = fks.setdefault(fk_id, {"from": [], "to": [], "table": target, "on_delete": on_delete})
            entry["from"].append(source)
            entry["to"].append(to)
        for entry in fks.values():
            if None in entry["to"]:
                entry["to"] = [c[0] for c in sorted(
                    (c for c in db.execute("SELECT name, pk FROM pragma_table_info(?)", (entry["table"],)) if c[1]),
                    key=lambda c: c[1])]
        fk_columns = {c for entry in fks.values() for c in entry["from"]}
        # A rowid alias hands out ids, unless it is a foreign key: then the
        # row always names it (a person's preferences row is keyed by them).
        rowid_alias = (not without_rowid and len(pk) == 1
                       and next(c[1] for c in info if c[0] == pk[0]).upper() == "INTEGER"
                       and pk[0] not in fk_columns)
        columns = {}
        for col, decl, notnull, default, pk_index in info:
            columns[col] = {
                "type": TYPE_MAP.get(decl.upper(), decl.lower()),
                "not_null": bool(notnull) or pk_index > 0,
                "default": normal_default(default),
                "generated": rowid_alias and col == pk[0],
            }
            if columns[col]["default"] == "expr":
                columns[col]["shape"] = shape(db.execute(f"SELECT {default}").fetchone()[0])
        uniques, indexes = set(), set()
        for _seq, index, unique, origin, partial in db.execute("SELECT * FROM pragma_index_list(?)", (name,)):
            if origin == "pk":
                continue
            cols = tuple(r[0] for r in db.execute(
                "SELECT name FROM pragma_index_info(?) ORDER BY seqno", (index,)))
            if unique:
                uniques.add((cols, bool(partial)))
            if origin == "c":
                indexes.add((index, cols, bool(unique), bool(partial)))
        triggers = set()
        for trigger, trigger_sql in db.execute(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?", (name,)):
            match = re.search(r"\b(BEFORE|AFTER|INSTEAD\s+OF)\s+(INSERT|UPDATE|DELETE)(?:\s+OF\s+(.*?))?\s+ON\s",
                              strip_comments(trigger_sql), re.I | re.S)
            timing, event, of = match.group(1).upper(), match.group(2).upper(), match.group(3)
            triggers.add((trigger, timing, event, tuple(sorted(c.strip() for c in of.split(","))) if of else ()))
        tables[name] = {
            "columns": columns,
            "primary_key": tuple(pk),
            "uniques": uniques,
            "foreign_keys": {(tuple(e["from"]), e["table"], tuple(e["to"]), e["on_delete"].upper())
                             for e in fks.values()},
            "indexes": indexes,
            "checks": len(re.findall(r"\bCHECK\s*\(", strip_comments(sql), re.I)),
            "triggers": triggers,
            "rows": sorted(json.dumps(dict(zip([d[0] for d in cursor.description], row)), sort_keys=True)
                           for cursor in [db.execute(f'SELECT * FROM "{name}"')] for row in cursor.fetchall()),
        }
    return tables


def normal_default(text):
    """A literal default as both stores spell it; any expression as `expr`."""
    if text is None:
        return None
    text = re.sub(r"::[a-z ]+$", "", text.strip())
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    if re.fullmatch(r"-?[0-9]+(\.[0-9]+)?|'(?:[^']|'')*'|NULL", text, re.I):
        return text
    return "expr"


# MARK: - PostgreSQL


class Postgres:
    """psql against one schema of one server; `run` applies a file, `json` reads a query."""

    def __init__(self, conninfo, schema):
        self.conninfo, self.schema = conninfo, schema
        self.psql = find_tool("psql")

    def _command(self, *args):
        command = [self.psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.conninfo, *args]
        env = dict(os.environ, PGOPTIONS=f"-c search_path={self.schema} -c client_min_messages=warning")
        return command, env

    def run(self, *args, stdin=None):
        command, env = self._command(*args)
        result = subprocess.run(command, env=env, input=stdin, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(result.stderr.strip() or result.stdout.strip())
        return result.stdout

    def json(self, *queries):
        """Each query's rows as a list of dicts, all in one psql."""
        args = [arg for query in queries
                for arg in ("-c", f"SELECT coalesce(json_agg(q), '[]') FROM ({query}) q")]
        # jsonb's text is one line; json_agg's breaks between rows.
        args = [arg.replace("'[]') FROM", "'[]')::jsonb::text FROM") for arg in args]
        lines = [line for line in self.run("-A", "-t", *args).splitlines() if line.strip()]
        return [json.loads(line) for line in lines]


def find_tool(name):
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=version_key, reverse=True)
    if candidates:
        return candidates[0]
    raise Unavailable(f"{name} not found (Debian: postgresql)")


def version_key(path):
    match = re.search(r"/postgresql/(\d+)/", path)
    return int(match.group(1)) if match else 0


class Cluster:
    """A throwaway PostgreSQL cluster in a temporary directory, on loopback only."""

    def __enter__(self):
        initdb, pg_ctl = find_tool("initdb"), find_tool("pg_ctl")
        self.directory = tempfile.mkdtemp(prefix="kith-parity-")
        self.as_user = []
        if os.geteuid() == 0:
            # initdb refuses root; the cluster runs as an unprivileged user.
            os.chmod(self.directory, 0o755)
            shutil.chown(self.directory, "nobody")
            self.as_user = ["runuser", "-u", "nobody", "--"]
        self.pg_ctl = pg_ctl
        self.data = os.path.join(self.directory, "db")
        self.port = free_port()
        self._quiet("initdb", [*self.as_user, initdb, "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync"])
        self._quiet("pg_ctl start", [*self.as_user, pg_ctl, "-D", self.data, "-w", "-l", os.path.join(self.directory, "log"),
                     "-o", f"-p {self.port} -k {self.directory} -c listen_addresses='' -c fsync=off", "start"])
        self.conninfo = f"host={self.directory} port={self.port} user=postgres dbname=postgres"
        return self

    def __exit__(self, *_):
        subprocess.run([*self.as_user, self.pg_ctl, "-D", self.data, "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(self.directory, ignore_errors=True)

    def _quiet(self, what, command):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise Unavailable(f"{what}: {(result.stderr or result.stdout).strip()}")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def apply_postgres(pg, files):
    """One psql for all files (cheaper on a busy machine), one transaction each;
    psql's error names the file and line."""
    script = "".join(f"BEGIN;\n\\i '{path}'\nCOMMIT;\n" for path in files)
    try:
        pg.run("-f", "-", stdin=script)
    except RuntimeError as error:
        raise SystemExit(f"a migration fails on PostgreSQL: {error}")


def postgres_schema(pg):
    literal = f"'{pg.schema}'"
    # The column lists of an index or a constraint, in their own order.
    def names(keys, relation):
        return (f"array(SELECT a.attname FROM unnest({keys}) WITH ORDINALITY AS u(attnum, ord) "
                f"JOIN pg_attribute a ON a.attrelid = {relation} AND a.attnum = u.attnum ORDER BY u.ord)")
    in_schema = f"JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = {literal}"
    relations, columns, indexes, constraints, triggers = pg.json(
        f"SELECT t.relname FROM pg_class t {in_schema} AND t.relkind = 'r'",
        f"SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity "
        f"FROM information_schema.columns WHERE table_schema = {literal}",
        f"SELECT t.relname AS table, i.relname AS index, x.indisunique AS unique, x.indisprimary AS primary, "
        f"x.indpred IS NOT NULL AS partial, "
        f"EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid) AS constraint, "
        f"{names('x.indkey', 'x.indrelid')} AS columns "
        f"FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid {in_schema}",
        f"SELECT t.relname AS table, k.contype AS type, k.confdeltype AS on_delete, f.relname AS target, "
        f"{names('k.conkey', 'k.conrelid')} AS columns, {names('k.confkey', 'k.confrelid')} AS targets "
        f"FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid LEFT JOIN pg_class f ON f.oid = k.confrelid "
        f"{in_schema} AND k.contype IN ('f', 'c')",
        f"SELECT event_object_table AS table, trigger_name AS name, action_timing AS timing, "
        f"event_manipulation AS event, array(SELECT event_object_column::text "
        f"FROM information_schema.triggered_update_columns u WHERE u.trigger_schema = t.trigger_schema "
        f"AND u.trigger_name = t.trigger_name AND u.event_object_table = t.event_object_table) AS columns "
        f"FROM information_schema.triggers t WHERE trigger_schema = {literal}")
    tables = {r["relname"]: {"columns": {}, "primary_key": (), "uniques": set(), "foreign_keys": set(),
                             "indexes": set(), "checks": 0, "triggers": set(), "rows": []} for r in relations}
    for r in columns:
        tables[r["table_name"]]["columns"][r["column_name"]] = {
            "type": r["data_type"],
            "not_null": r["is_nullable"] == "NO",
            "default": normal_default(r["column_default"]),
            "expression": r["column_default"],
            "generated": r["is_identity"] == "YES",
        }
    for r in indexes:
        table, cols = tables[r["table"]], tuple(r["columns"])
        if r["primary"]:
            table["primary_key"] = cols
            continue
        if r["unique"]:
            table["uniques"].add((cols, r["partial"]))
        if not r["constraint"]:
            table["indexes"].add((r["index"], cols, r["unique"], r["partial"]))
    for r in constraints:
        table = tables[r["table"]]
        if r["type"] == "c":
            table["checks"] += 1
        else:
            table["foreign_keys"].add((tuple(r["columns"]), r["target"], tuple(r["targets"]),
                                       ON_DELETE[r["on_delete"]]))
    # information_schema lists a trigger once per event; each of Kith's has one.
    for r in triggers:
        tables[r["table"]]["triggers"].add((r["name"], r["timing"], r["event"], tuple(sorted(r["columns"]))))
    if tables:
        [rows] = pg.json(" UNION ALL ".join(
            f"SELECT '{name}' AS table, row_to_json(t)::text AS row FROM \"{name}\" t" for name in tables))
        for r in rows:
            tables[r["table"]]["rows"].append(json.dumps(json.loads(r["row"]), sort_keys=True))
        for table in tables.values():
            table["rows"].sort()
    # What each default expression (a timestamp's text) gives now.
    computed = [(t, c, v["expression"]) for t, table in tables.items()
                for c, v in table["columns"].items() if v["default"] == "expr"]
    if computed:
        [values] = pg.json(" UNION ALL ".join(
            f"SELECT '{t}' AS table, '{c}' AS column, ({e})::text AS value" for t, c, e in computed))
        for r in values:
            tables[r["table"]]["columns"][r["column"]]["shape"] = shape(r["value"])
    return tables


def shape(value):
    """Digits as 9, so two clocks' readings compare by format."""
    return None if value is None else re.sub(r"[0-9]", "9", str(value))


# MARK: - Comparing


def compare(sqlite_tables, postgres_tables):
    differences = []

    def differ(table, what, sqlite_value, postgres_value):
        differences.append(f"{table}: {what}: SQLite {describe(sqlite_value)}, PostgreSQL {describe(postgres_value)}")

    for name in sorted(set(sqlite_tables) | set(postgres_tables)):
        if name not in postgres_tables:
            differences.append(f"{name}: only on SQLite")
            continue
        if name not in sqlite_tables:
            differences.append(f"{name}: only on PostgreSQL")
            continue
        s, p = sqlite_tables[name], postgres_tables[name]
        for column in sorted(set(s["columns"]) | set(p["columns"])):
            sc, pc = s["columns"].get(column), p["columns"].get(column)
            if sc is None or pc is None:
                differ(name, f"column {column}", "present" if sc else "absent", "present" if pc else "absent")
                continue
            for key in ("type", "not_null", "generated"):
                if sc[key] != pc[key]:
                    differ(name, f"column {column} {key}", sc[key], pc[key])
            if (sc["default"] is None) != (pc["default"] is None):
                differ(name, f"column {column} has a default", sc["default"] is not None, pc["default"] is not None)
            elif sc["default"] != pc["default"]:
                differ(name, f"column {column} default", sc["default"], pc["default"])
            elif sc.get("shape") != pc.get("shape"):
                differ(name, f"column {column} default's text", sc.get("shape"), pc.get("shape"))
        for key in ("primary_key", "uniques", "foreign_keys", "indexes", "checks", "triggers"):
            if s[key] != p[key]:
                if isinstance(s[key], set):
                    differ(name, key, sorted(s[key] - p[key]), sorted(p[key] - s[key]))
                else:
                    differ(name, key, s[key], p[key])
        if len(s["rows"]) != len(p["rows"]):
            differ(name, "seed rows", len(s["rows"]), len(p["rows"]))
        elif s["rows"] != p["rows"]:
            only = sorted(set(s["rows"]) - set(p["rows"]))[:3]
            differ(name, "seed row contents", only, sorted(set(p["rows"]) - set(s["rows"]))[:3])
    return differences


def describe(value):
    return "none" if value in (None, [], ()) else str(value)


def migration_files(directory):
    files = sorted(glob.glob(os.path.join(directory, "[0-9]*.sql")))
    if not files:
        raise SystemExit(f"no migrations in {directory}")
    return files


def numbers_and_names(files):
    return [os.path.basename(f) for f in files]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--migrations", default=os.path.join(root, "Migrations"))
    parser.add_argument("--database", default=os.environ.get("KITH_TEST_DATABASE"),
                        help="a PostgreSQL server to use (default: KITH_TEST_DATABASE, else a throwaway cluster)")
    args = parser.parse_args()

    sqlite_files = migration_files(args.migrations)
    postgres_files = migration_files(os.path.join(args.migrations, "postgres"))
    missing = sorted(set(numbers_and_names(sqlite_files)) ^ set(numbers_and_names(postgres_files)))
    sqlite_tables = sqlite_schema(apply_sqlite(sqlite_files))

    schema = "kith_parity_" + secrets.token_hex(4)
    try:
        if args.database:
            postgres_tables = postgres_run(args.database, schema, postgres_files)
        else:
            with Cluster() as cluster:
                postgres_tables = postgres_run(cluster.conninfo, schema, postgres_files)
    except Unavailable as error:
        print(f"schema parity: PostgreSQL unavailable: {error}", file=sys.stderr)
        return 2

    differences = [f"{name}: only in one of Migrations/ and Migrations/postgres/" for name in missing]
    differences += compare(sqlite_tables, postgres_tables)
    for line in differences:
        print(line)
    print(f"schema parity: {len(sqlite_tables)} tables from {len(sqlite_files)} SQLite and "
          f"{len(postgres_files)} PostgreSQL migrations, {len(differences)} differences")
    return 1 if differences else 0


def postgres_run(conninfo, schema, files):
    pg = Postgres(conninfo, schema)
    try:
        pg.run("-c", f"CREATE SCHEMA {schema}")
    except RuntimeError as error:
        raise Unavailable(str(error))
    try:
        apply_postgres(pg, files)
        return postgres_schema(pg)
    finally:
        pg.run("-c", f"DROP SCHEMA {schema} CASCADE")


if __name__ == "__main__":
    sys.exit(main())
