import Testing
@testable import KithStorage
import KithTestSupport

@Suite("Errors")
struct ErrorTests {
    private func usersDatabase(_ directory: TemporaryDirectory) throws -> Database {
        let db = try directory.database()
        try db.write { tx in
            try tx.executeScript("""
                CREATE TABLE users (
                    id INTEGER PRIMARY KEY,
                    username_key TEXT NOT NULL UNIQUE,
                    org INTEGER, email TEXT,
                    age INTEGER CHECK (age >= 0),
                    UNIQUE (org, email)
                );
                CREATE TABLE posts (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES users(id));
                INSERT INTO users (id, username_key, org, email, age) VALUES (1, 'ann', 1, 'a@x', 30);
                """)
        }
        return db
    }

    @Test("a UNIQUE violation is recognized by extended code and names the column, not the value")
    func uniqueViolation() throws {
        let directory = try TemporaryDirectory()
        let db = try usersDatabase(directory)
        let error = try #require(throws: DatabaseError.self) {
            try db.write { tx in try tx.execute("INSERT INTO users (username_key) VALUES (\("ann"))") }
        }
        #expect(error.resultCode == 19)
        #expect(error.extendedResultCode == 2067)
        #expect(error.isUniqueViolation)
        #expect(!error.isForeignKeyViolation && !error.isCheckViolation && !error.isBusy)
        #expect(error.uniqueViolationTable == "users")
        #expect(error.uniqueViolationColumns == ["username_key"])
        #expect(error.sql == "INSERT INTO users (username_key) VALUES (?)")
        #expect(!error.description.contains("ann"))
    }

    @Test("a composite UNIQUE violation names every column; a duplicate primary key counts as unique")
    func compositeAndPrimaryKey() throws {
        let directory = try TemporaryDirectory()
        let db = try usersDatabase(directory)
        let composite = try #require(throws: DatabaseError.self) {
            try db.write { tx in try tx.execute("INSERT INTO users (username_key, org, email) VALUES (\("bo"), \(1), \("a@x"))") }
        }
        #expect(composite.uniqueViolationColumns == ["org", "email"])

        let primaryKey = try #require(throws: DatabaseError.self) {
            try db.write { tx in try tx.execute("INSERT INTO users (id, username_key) VALUES (\(1), \("cy"))") }
        }
        #expect(primaryKey.isUniqueViolation)
        #expect(primaryKey.extendedResultCode == 1555) // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(primaryKey.uniqueViolationColumns == ["id"])
    }

    @Test("foreign key, CHECK and NOT NULL violations are told apart")
    func otherConstraints() throws {
        let directory = try TemporaryDirectory()
        let db = try usersDatabase(directory)
        let foreignKey = try #require(throws: DatabaseError.self) {
            try db.write { tx in try tx.execute("INSERT INTO posts (author_id) VALUES (\(42))") }
        }
        #expect(foreignKey.isForeignKeyViolation)
        #expect(!foreignKey.isUniqueViolation)
        #expect(foreignKey.uniqueViolationColumns.isEmpty)

        let check = try #require(throws: DatabaseError.self) {
            try db.write { tx in try tx.execute("INSERT INTO users (username_key, age) VALUES (\("dee"), \(-1))") }
        }
        #expect(check.isCheckViolation)

        let notNull = try #require(throws: DatabaseError.self) {
            try db.write { tx in try tx.execute("INSERT INTO users (username_key) VALUES (\(nil as String?))") }
        }
        #expect(notNull.isNotNullViolation)
    }

    @Test("SQL mistakes are reported with the statement")
    func sqlMistakes() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        let syntax = try #require(throws: DatabaseError.self) {
            try db.read { try $0.query("SELEC * FROM t") }
        }
        #expect(syntax.message.contains("syntax error"))
        #expect(syntax.sql == "SELEC * FROM t")

        let twoStatements = try #require(throws: DatabaseError.self) {
            try db.write { tx in try tx.execute("DELETE FROM t; DROP TABLE t") }
        }
        #expect(twoStatements.message.contains("more than one statement"))
        #expect(try db.read { try $0.count() } == 0)

        let hiddenSecond = try #require(throws: DatabaseError.self) {
            try db.write { tx in try tx.execute("DELETE FROM t; ; DROP TABLE t") }
        }
        #expect(hiddenSecond.message.contains("more than one statement"))

        // A trailing comment or semicolon is not a second statement.
        try db.write { tx in try tx.execute("DELETE FROM t;; -- tidy up\n") }

        let strayPlaceholder = try #require(throws: DatabaseError.self) {
            try db.read { try $0.query("SELECT * FROM t WHERE id = ?") }
        }
        #expect(strayPlaceholder.message.contains("1 parameters but 0 values"))
    }

    @Test("the database refuses work once closed")
    func closed() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        db.close()
        db.close()
        #expect(throws: DatabaseError.self) { try db.read { try $0.count() } }
        #expect(throws: DatabaseError.self) { try db.write { try $0.count() } }
        #expect(throws: DatabaseError.self) { try db.backup(to: directory.file("copy.sqlite")) }
    }
}
