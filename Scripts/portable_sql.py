#!/usr/bin/env python3
"""Runs one SQL file on SQLite and on PostgreSQL, both freshly migrated, and
compares what each statement returns, statement by statement.

For checking by hand that store SQL reads the same on both stores: write
the statements with literals where the store binds values, one per
statement (`;` ends each). A statement that fails on one store, or rows that
differ (a boolean where SQLite gives 0/1, another order), are printed; the
exit status is 1 then, 0 when every statement agrees.

    python3 Scripts/portable_sql.py FILE [--database URL]

PostgreSQL as in schema_parity.py: --database, KITH_TEST_DATABASE, or a
throwaway cluster.
"""

import argparse
import os
import secrets
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema_parity  # noqa: E402

MARK = "-- kith statement --"


def statements(path):
    with open(path, encoding="utf-8") as handle:
        return [s for s in schema_parity.split_sqlite(handle.read()) if schema_parity.strip_comments(s).strip()]


def on_sqlite(db, statement):
    try:
        cursor = db.execute(statement)
        return [tuple("" if v is None else str(v) for v in row) for row in cursor.fetchall()]
    except sqlite3.Error as error:
        return f"error: {error}"


def on_postgres(pg, all_statements):
    """Every statement in one psql, each its own transaction, so one error
    stops nothing; a marker line parts their outputs. An error reads
    `error: message`, as on SQLite, so refusals compare by their words."""
    script = "".join(f"\\echo '{MARK}'\n{statement.strip().rstrip(';')};\n" for statement in all_statements)
    command, env = pg._command("-A", "-t", "-F", "\x1f", "-f", "-")
    command = ["ON_ERROR_STOP=0" if part == "ON_ERROR_STOP=1" else part for part in command]
    # Errors share the pipe, so each lands among its statement's output.
    result = subprocess.run(command, env=env, input=script, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    outputs = []
    for chunk in result.stdout.split(MARK + "\n")[1:]:
        error = next((line.split("ERROR:", 1)[1].strip() for line in chunk.splitlines() if "ERROR:" in line), None)
        outputs.append(f"error: {error}" if error else [tuple(line.split("\x1f")) for line in chunk.splitlines()])
    return outputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--database", default=os.environ.get("KITH_TEST_DATABASE"))
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    migrations = os.path.join(root, "Migrations")
    listed = statements(args.file)

    db = schema_parity.apply_sqlite(schema_parity.migration_files(migrations))
    sqlite_results = [on_sqlite(db, s) for s in listed]

    schema = "kith_statements_" + secrets.token_hex(4)

    def run(conninfo):
        pg = schema_parity.Postgres(conninfo, schema)
        pg.run("-c", f"CREATE SCHEMA {schema}")
        try:
            schema_parity.apply_postgres(pg, schema_parity.migration_files(os.path.join(migrations, "postgres")))
            return on_postgres(pg, listed)
        finally:
            pg.run("-c", f"DROP SCHEMA {schema} CASCADE")

    if args.database:
        postgres_results = run(args.database)
    else:
        with schema_parity.Cluster() as cluster:
            postgres_results = run(cluster.conninfo)

    differences = 0
    for number, (statement, s, p) in enumerate(zip(listed, sqlite_results, postgres_results), 1):
        if s != p:
            differences += 1
            print(f"statement {number}: {' '.join(statement.split())[:160]}\n  SQLite:     {s}\n  PostgreSQL: {p}")
    print(f"portable SQL: {len(listed)} statements, {differences} differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
