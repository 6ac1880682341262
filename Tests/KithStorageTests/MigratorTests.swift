import Testing
@testable import KithStorage
import KithTestSupport

@Suite("Migrations")
struct MigratorTests {
    private func setUp(_ files: [String: String]) throws -> (TemporaryDirectory, Database, String) {
        let directory = try TemporaryDirectory()
        let migrations = directory.file("migrations")
        try FileManagerShim.createDirectory(migrations)
        for (name, sql) in files {
            try directory.write("migrations/" + name, sql)
        }
        let db = try Database(path: directory.file("app.sqlite"))
        return (directory, db, migrations)
    }

    private let users = "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    private let posts = """
        CREATE TABLE posts (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES users(id));
        CREATE INDEX posts_author ON posts(author_id);
        """

    @Test("migrations apply in numeric order, once; re-running applies nothing")
    func appliesInOrderOnce() throws {
        let (directory, db, path) = try setUp([
            "0002_posts.sql": posts,
            "0001_users.sql": users,
            "10_seed.sql": "INSERT INTO users (name) VALUES ('first');",
            "README.md": "not a migration",
        ])
        _ = directory
        let migrator = try Migrator(database: db, directory: path)
        #expect(migrator.migrations.map(\.version) == [1, 2, 10])
        #expect(try migrator.pending.map(\.name) == ["0001_users.sql", "0002_posts.sql", "10_seed.sql"])
        #expect(try migrator.applied.isEmpty)

        #expect(try migrator.migrate() == ["0001_users.sql", "0002_posts.sql", "10_seed.sql"])
        #expect(try migrator.pending.isEmpty)
        let applied = try migrator.applied
        #expect(applied.map(\.version) == [1, 2, 10])
        #expect(applied.allSatisfy { $0.appliedAt.hasSuffix("Z") && $0.appliedAt.count == 24 })

        #expect(try migrator.migrate().isEmpty)
        #expect(try Migrator(database: db, directory: path).migrate().isEmpty)
        #expect(try db.read { try $0.count("users") } == 1)
    }

    @Test("a failing migration names the file and is not applied, while earlier ones stay")
    func failingMigration() throws {
        let (directory, db, path) = try setUp([
            "0001_users.sql": users,
            "0002_broken.sql": "CREATE TABLE half (x);\nCREAT TABLE typo (y);",
            "0003_posts.sql": posts,
        ])
        _ = directory
        let migrator = try Migrator(database: db, directory: path)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate() }
        guard case .failed(let file, let underlying) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(file == "0002_broken.sql")
        #expect(underlying.message.contains("syntax error"))
        #expect(underlying.sql?.contains("CREAT TABLE typo") == true)
        #expect("\(error)".contains("0002_broken.sql"))

        #expect(try migrator.applied.map(\.name) == ["0001_users.sql"])
        #expect(try migrator.pending.map(\.name) == ["0002_broken.sql", "0003_posts.sql"])
        // The statement before the typo was rolled back with the rest of the file.
        let half = try db.read { try $0.queryOne("SELECT 1 FROM sqlite_schema WHERE name = 'half'") }
        #expect(half == nil)
    }

    @Test("a migration that leaves dangling foreign keys is rejected by foreign_key_check")
    func foreignKeyCheck() throws {
        let (directory, db, path) = try setUp([
            "0001_users.sql": users + posts,
            "0002_orphans.sql": "INSERT INTO posts (author_id) VALUES (42);",
        ])
        _ = directory
        let migrator = try Migrator(database: db, directory: path)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate() }
        guard case .foreignKeyViolations(let file, let violations) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(file == "0002_orphans.sql")
        #expect(violations == ["posts rowid 1 -> users"])
        #expect(try migrator.applied.map(\.version) == [1])
        #expect(try db.read { try $0.count("posts") } == 0)
    }

    @Test("a referencing table can be rebuilt under enforced foreign keys")
    func tableRebuild() throws {
        let (directory, db, path) = try setUp([
            "0001_schema.sql": users + posts + "INSERT INTO users VALUES (1, 'a'); INSERT INTO posts VALUES (1, 1);",
            "0002_rebuild_posts.sql": """
                CREATE TABLE posts_new (
                    id INTEGER PRIMARY KEY,
                    author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    title TEXT NOT NULL DEFAULT ''
                );
                INSERT INTO posts_new (id, author_id) SELECT id, author_id FROM posts;
                DROP TABLE posts;
                ALTER TABLE posts_new RENAME TO posts;
                CREATE INDEX posts_author ON posts(author_id);
                """,
        ])
        _ = directory
        #expect(try Migrator(database: db, directory: path).migrate().count == 2)
        try db.write { tx in try tx.execute("DELETE FROM users WHERE id = 1") }
        #expect(try db.read { try $0.count("posts") } == 0)
    }

    @Test("an applied migration whose text changed stops the start, naming the file; one never applied may still change")
    func checksums() throws {
        let (directory, db, path) = try setUp(["0001_users.sql": users])
        #expect(try Migrator(database: db, directory: path).migrate() == ["0001_users.sql"])
        let stored = try db.read { try $0.queryValue("SELECT checksum FROM schema_migrations WHERE version = 1", as: String.self) }
        #expect(stored?.count == 64)

        try directory.write("migrations/0001_users.sql", users + "\n-- an afterthought\n")
        #expect {
            try Migrator(database: db, directory: path).migrate()
        } throws: { error in
            guard case MigrationError.changedAfterApplying(let file) = error else { return false }
            return file == "0001_users.sql" && "\(error)".contains("0001_users.sql")
        }
        try directory.write("migrations/0001_users.sql", users)
        try directory.write("migrations/0002_posts.sql", posts)
        #expect(try Migrator(database: db, directory: path).migrate() == ["0002_posts.sql"])
    }

    @Test("a database from before checksums gets the column, and its applied files are trusted once as they are")
    func checksumsAdoptedOnce() throws {
        let (directory, db, path) = try setUp(["0001_users.sql": users])
        try db.write { tx in
            try tx.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
            try tx.executeScript(users)
            try tx.execute("INSERT INTO schema_migrations VALUES (1, '0001_users.sql', '2026-01-01T00:00:00Z')")
        }
        #expect(try Migrator(database: db, directory: path).migrate().isEmpty)
        #expect(try db.read { try $0.queryValue("SELECT checksum FROM schema_migrations", as: String.self) }?.count == 64)
        try directory.write("migrations/0001_users.sql", users + " -- changed")
        #expect(throws: MigrationError.self) { try Migrator(database: db, directory: path).migrate() }
    }

    @Test("duplicate numbers and badly named .sql files are rejected before anything runs")
    func badDirectories() throws {
        let (dupDirectory, dupDB, dupPath) = try setUp(["0001_a.sql": users, "1_b.sql": users])
        _ = dupDirectory
        let duplicate = try #require(throws: MigrationError.self) { try Migrator(database: dupDB, directory: dupPath) }
        guard case .duplicateVersion(1, let files) = duplicate else {
            Issue.record("unexpected error \(duplicate)")
            return
        }
        #expect(files == ["0001_a.sql", "1_b.sql"])

        for badName in ["users.sql", "0001-users.sql", "0001_.sql", "v1_users.sql", "0001_user table.sql", "0001_users.SQL"] {
            let (directory, db, path) = try setUp(["0002_ok.sql": users, badName: users])
            _ = directory
            let error = try #require(throws: MigrationError.self) { try Migrator(database: db, directory: path) }
            #expect("\(error)".contains(badName))
        }

        #expect(throws: MigrationError.self) { try Migrator(database: dupDB, directory: dupPath + "/missing") }
    }
}
