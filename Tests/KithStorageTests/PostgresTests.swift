import Dispatch
import Foundation
import Synchronization
import Testing
@testable import KithStorage
import KithTestSupport

/// What needs no server: placeholders, the SQLSTATE table, URLs.
@Suite("PostgreSQL dialect")
struct PostgresDialectTests {
    @Test("placeholders become $1…$n in order; a ? in a string, identifier or comment stays")
    func placeholders() {
        let sql: SQL = "SELECT '?' AS \"a?\", \(1) -- why?\n, /* ? */ \("x") WHERE b IN (\(list: [2, 3]))"
        #expect(sql.text(for: .postgres) == "SELECT '?' AS \"a?\", $1 -- why?\n, /* ? */ $2 WHERE b IN ($3, $4)")
        #expect(sql.text(for: .sqlite) == sql.text)
        let quoted: SQL = "SELECT 'it''s ?', \(5)"
        #expect(quoted.text(for: .postgres) == "SELECT 'it''s ?', $1")
    }

    @Test("each SQLSTATE maps to the SQLite kind the app already tests for", arguments: [
        ("23505", Int32(2067)), ("23503", 787), ("23514", 275), ("23502", 1299), ("P0001", 1811),
        ("40001", 5), ("40P01", 5), ("08006", 10), ("42601", 1),
    ])
    func sqlStates(state: String, code: Int32) {
        let error = DatabaseError(sqlState: state, primary: "m", table: "users", column: "name", constraint: "c", detail: "Key (org, email)=(1, secret@x) already exists.", sql: nil)
        #expect(error.extendedResultCode == code)
        #expect(error.sqlState == state)
        #expect(error.isUniqueViolation == (state == "23505"))
        #expect(error.isForeignKeyViolation == (state == "23503"))
        #expect(error.isCheckViolation == (state == "23514"))
        #expect(error.isNotNullViolation == (state == "23502"))
        #expect(error.isBusy == (state.hasPrefix("40")))
        #expect(!error.description.contains("secret"))
        if state == "23505" {
            #expect(error.uniqueViolationTable == "users")
            #expect(error.uniqueViolationColumns == ["org", "email"])
        }
    }

    @Test("URLs: a password never reaches the logs; a test database swaps the name only")
    func urls() {
        #expect(Database.redacted("postgres://kith:hunter2@db:5432/kith") == "postgres://kith:…@db:5432/kith")
        #expect(Database.redacted("postgres://kith@db/kith") == "postgres://kith@db/kith")
        #expect(PostgresServer.url("postgres://u@h:1/postgres?sslmode=disable", database: "x") == "postgres://u@h:1/x?sslmode=disable")
        #expect(PostgresServer.url("postgres://u@h:1", database: "x") == "postgres://u@h:1/x")
    }
}

@Suite("PostgreSQL backend", .enabled(if: PostgresTestServer.isAvailable, "set KITH_TEST_DATABASE (make test-postgres)"))
struct PostgresBackendTests {
    @Test("values come back in SQLite's storage classes, decoded by column type")
    func values() throws {
        let scratch = try ScratchPostgres()
        defer { scratch.drop() }
        let blob: [UInt8] = [0, 1, 0xFE, 0xFF]
        let row = try #require(try scratch.database.read { conn in
            try conn.queryOne("""
                SELECT \(Int64.max) AS big, \(2.5) AS real, \("héllo ?") AS text, \(Blob(blob)) AS blob,
                       \(nil as Int64?) AS nothing, true AS yes, 7::int2 AS small, sum(x) AS total, 'x'::varchar AS v
                FROM (VALUES (1::bigint), (2::bigint)) AS v(x)
                """)
        })
        #expect(row["big"] == .integer(Int64.max))
        #expect(row["real"] == .real(2.5))
        #expect(row["text"] == .text("héllo ?"))
        #expect(row["blob"] == .blob(blob))
        #expect(row["nothing"] == .null)
        #expect(row["yes"] == .integer(1))
        #expect(row["small"] == .integer(7))
        #expect(row["total"] == .integer(3))
        #expect(row["v"] == .text("x"))
    }

    @Test("constraint failures carry their kind; a trigger's refusal reads like SQLite's RAISE")
    func constraints() throws {
        let scratch = try ScratchPostgres()
        defer { scratch.drop() }
        let db = scratch.database
        try db.write { tx in
            try tx.executeScript("""
                CREATE TABLE users (id BIGINT PRIMARY KEY, username_key TEXT NOT NULL UNIQUE, age BIGINT CONSTRAINT age_positive CHECK (age >= 0));
                CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL REFERENCES users(id));
                CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'posts are permanent'; END $$;
                CREATE TRIGGER posts_permanent BEFORE DELETE ON posts FOR EACH ROW EXECUTE FUNCTION refuse();
                INSERT INTO users VALUES (1, 'ann', 30);
                INSERT INTO posts VALUES (1, 1);
                """)
        }
        func failure(_ sql: SQL) throws -> DatabaseError {
            try #require(throws: DatabaseError.self) { try db.write { tx in try tx.execute(sql) } }
        }
        let unique = try failure("INSERT INTO users (id, username_key) VALUES (\(2), \("ann"))")
        #expect(unique.isUniqueViolation && unique.uniqueViolationColumns == ["username_key"] && unique.uniqueViolationTable == "users")
        #expect(!unique.description.contains("ann"))
        #expect(try failure("INSERT INTO users (id, username_key) VALUES (\(1), \("bo"))").isUniqueViolation)
        #expect(try failure("INSERT INTO posts VALUES (\(2), \(99))").isForeignKeyViolation)
        #expect(try failure("UPDATE users SET age = \(-1)").isCheckViolation)
        #expect(try failure("INSERT INTO users (id, username_key) VALUES (\(3), \(nil as String?))").isNotNullViolation)
        let trigger = try failure("DELETE FROM posts")
        #expect(trigger.extendedResultCode == DatabaseError.constraintTrigger && trigger.message == "posts are permanent")
        #expect(try db.read { try $0.count("posts") } == 1)
    }

    @Test("rollback on throw; afterCommit runs only after a commit; changes and lastInsertRowID")
    func transactions() throws {
        struct Stop: Error {}
        let scratch = try ScratchPostgres()
        defer { scratch.drop() }
        let db = scratch.database
        let ran = Mutex<[String]>([])
        #expect(throws: Stop.self) {
            try db.write { tx in
                try tx.execute("INSERT INTO t (name) VALUES (\("lost"))")
                tx.afterCommit { ran.withLock { $0.append("rolled back") } }
                throw Stop()
            }
        }
        #expect(try db.read { try $0.count() } == 0)
        let (changed, id) = try db.write { tx in
            tx.afterCommit {
                // Runs after COMMIT: a fresh read already sees the row.
                let seen = (try? db.read { try $0.count() }) ?? -1
                ran.withLock { $0.append("committed, saw \(seen)") }
            }
            let inserted = try tx.queryValue("INSERT INTO t (name) VALUES (\("kept")) RETURNING id") as Int64?
            let changed = try tx.execute("UPDATE t SET name = name")
            return (changed, inserted == tx.lastInsertRowID ? inserted : nil)
        }
        #expect(changed == 1)
        // The rolled-back insert drew 1: sequences do not roll back.
        #expect(id == 2)
        #expect(ran.withLock { $0 } == ["committed, saw 1"])
    }

    @Test("the same SQL is prepared once per session; the cache is bounded and evicted statements are freed")
    func statementCache() throws {
        let scratch = try ScratchPostgres(readers: 1, statementCacheCapacity: 3)
        defer { scratch.drop() }
        let db = scratch.database
        let prepared = try db.read { conn in
            let before = conn.preparedStatementCount
            for i in 1...20 { _ = try conn.queryOne("SELECT \(i) + 1 AS n") }
            return conn.preparedStatementCount - before
        }
        #expect(prepared == 1)
        let again = try db.read { conn in
            let before = conn.preparedStatementCount
            for i in 1...5 { _ = try conn.queryOne(SQL.unsafeRaw("SELECT \(i) AS n")) }
            _ = try conn.queryOne(SQL.unsafeRaw("SELECT 1 AS n"))
            return conn.preparedStatementCount - before
        }
        // Five new texts through a cache of three: the first was evicted, so
        // asking for it again prepares it again.
        #expect(again == 6)
        // Evicted statements are freed at the next BEGIN, so the second count
        // is the settled one.
        let count: SQL = "SELECT count(*) FROM pg_prepared_statements"
        _ = try db.read { try $0.queryValue(count) as Int? }
        #expect(try db.read { try $0.queryValue(count) as Int? } == 3)
    }

    @Test("a session the server dropped is replaced at the next read")
    func reconnect() throws {
        let scratch = try ScratchPostgres(readers: 1)
        defer { scratch.drop() }
        let db = scratch.database
        let first = try #require(try db.read { try $0.queryValue("SELECT pg_backend_pid()") as Int? })
        try scratch.administer("SELECT pg_terminate_backend(\(first))")
        let second = try #require(try db.read { try $0.queryValue("SELECT pg_backend_pid()") as Int? })
        #expect(second != first)
        #expect(try db.read { try $0.count() } == 0)
    }

    @Test("writes from two instances take turns: check-then-write never interleaves; readers do not wait")
    func writesSerialize() throws {
        let scratch = try ScratchPostgres()
        defer { scratch.drop() }
        let other = try scratch.secondInstance()
        defer { other.close() }
        try scratch.database.write { tx in try tx.execute("CREATE TABLE ledger (n BIGINT PRIMARY KEY)") }
        let errors = ErrorLog()
        // Each write reads the highest number and inserts the next one: two
        // writers at READ COMMITTED without the lock would read the same
        // highest number, and the primary key would refuse the second.
        let threads = [scratch.database, other].map { db in
            TestThread {
                for _ in 0..<100 {
                    errors.record {
                        try db.write { tx in
                            let highest = try tx.queryValue("SELECT coalesce(max(n), 0) FROM ledger") as Int? ?? 0
                            try tx.execute("INSERT INTO ledger (n) VALUES (\(highest + 1))")
                        }
                    }
                }
            }
        }
        threads.forEach { $0.join() }
        #expect(errors.all.isEmpty)
        #expect(try other.read { try $0.queryValue("SELECT count(*) FROM ledger") as Int? } == 200)

        // While a write holds the lock, another session cannot take it, and
        // a read still completes.
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let writer = TestThread {
            errors.record {
                try scratch.database.write { _ in
                    inside.signal()
                    release.wait()
                }
            }
        }
        inside.wait()
        let taken = try other.read { conn in
            try conn.queryValue("SELECT pg_try_advisory_xact_lock(\(PostgresConnection.writeLockKey))") as Int?
        }
        let count = try other.read { try $0.queryValue("SELECT count(*) FROM ledger") as Int? }
        release.signal()
        writer.join()
        #expect(taken == 0)
        #expect(count == 200)
        #expect(errors.all.isEmpty)
    }

    @Test("migrations come from the postgres folder, apply once, and are checksummed")
    func migrations() throws {
        let scratch = try ScratchPostgres()
        defer { scratch.drop() }
        let directory = try TemporaryDirectory()
        try FileManagerShim.createDirectory(directory.file("migrations/postgres"))
        try directory.write("migrations/0001_users.sql", "CREATE TABLE sqlite_only (id INTEGER PRIMARY KEY);")
        try directory.write("migrations/postgres/0001_users.sql", "CREATE TABLE users (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name TEXT NOT NULL);")
        try directory.write("migrations/postgres/0002_seed.sql", "INSERT INTO users (name) VALUES ('first');")
        let migrator = try Migrator(database: scratch.database, directory: directory.file("migrations"))
        #expect(try migrator.migrate() == ["0001_users.sql", "0002_seed.sql"])
        #expect(try migrator.migrate() == [])
        #expect(try migrator.applied.map(\.name) == ["0001_users.sql", "0002_seed.sql"])
        #expect(try scratch.database.read { try $0.count("users") } == 1)

        try directory.write("migrations/postgres/0002_seed.sql", "INSERT INTO users (name) VALUES ('changed');")
        let changed = try Migrator(database: scratch.database, directory: directory.file("migrations"))
        #expect(throws: MigrationError.self) { try changed.migrate() }
    }

    @Test("statementsRun counts statements, as on SQLite")
    func counting() throws {
        let scratch = try ScratchPostgres()
        defer { scratch.drop() }
        let db = scratch.database
        let before = db.statementsRun
        try db.read { conn in for _ in 0..<5 { _ = try conn.count() } }
        // BEGIN, five queries, COMMIT.
        #expect(db.statementsRun - before == 7)
        try db.checkReachable()
    }
}
