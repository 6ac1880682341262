import Synchronization
import Testing
import KithSync
@testable import KithStorage
import KithTestSupport

private struct Abort: Error {}

@Suite("Write transactions")
struct WriteTests {
    @Test("write returns the closure's value and commits", arguments: TestBackend.available)
    func commits(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        let id = try db.write { tx in
            try tx.execute("INSERT INTO t (name) VALUES (\("a"))")
            return tx.lastInsertRowID
        }
        #expect(id == 1)
        #expect(try db.read { try $0.count() } == 1)
    }

    @Test("a thrown error rolls everything back and is rethrown", arguments: TestBackend.available)
    func rollsBack(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        #expect(throws: Abort.self) {
            try db.write { tx in
                try tx.execute("INSERT INTO t (name) VALUES (\("a"))")
                try tx.execute("INSERT INTO t (name) VALUES (\("b"))")
                throw Abort()
            }
        }
        #expect(try db.read { try $0.count() } == 0)
        // The writer is usable again.
        try db.write { tx in try tx.execute("INSERT INTO t (name) VALUES (\("c"))") }
        #expect(try db.read { try $0.count() } == 1)
    }

    @Test("afterCommit actions run in order once committed, and never after a rollback", arguments: TestBackend.available)
    func afterCommit(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        let events = Mutex<[String]>([])

        try db.write { tx in
            try tx.execute("INSERT INTO t (name) VALUES (\("a"))")
            tx.afterCommit {
                // The data is already visible to readers.
                let visible = (try? db.read { try $0.count() }) ?? -1
                events.withLock { $0.append("first saw \(visible)") }
            }
            tx.afterCommit { events.withLock { $0.append("second") } }
            #expect(events.withLock { $0.isEmpty })
        }
        #expect(events.withLock { $0 } == ["first saw 1", "second"])

        events.withLock { $0.removeAll() }
        #expect(throws: Abort.self) {
            try db.write { tx in
                tx.afterCommit { events.withLock { $0.append("rolled back") } }
                throw Abort()
            }
        }
        #expect(events.withLock { $0.isEmpty })
    }

    @Test("a failing COMMIT rolls back and skips afterCommit")
    func failingCommit() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        try db.write { tx in
            try tx.executeScript("""
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (id INTEGER PRIMARY KEY,
                    parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        }
        let ran = Atomic<Bool>(false)
        let error = #expect(throws: DatabaseError.self) {
            try db.write { tx in
                try tx.execute("INSERT INTO child (parent_id) VALUES (\(42))")
                tx.afterCommit { ran.store(true, ordering: .relaxed) }
            }
        }
        #expect(error?.isForeignKeyViolation == true)
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        #expect(try db.read { try $0.count("child") } == 0)
    }

    @Test("a closure that ends the transaction itself is reported, not treated as committed")
    func closureEndsTransaction() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        let ran = Atomic<Bool>(false)
        #expect(throws: DatabaseError.self) {
            try db.write { tx in
                try tx.execute("INSERT INTO t (name) VALUES (\("a"))")
                try tx.execute("ROLLBACK")
                tx.afterCommit { ran.store(true, ordering: .relaxed) }
            }
        }
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        #expect(try db.read { try $0.count() } == 0)
    }

    @Test("a constraint failure can be handled inside the transaction, which goes on", arguments: TestBackend.available)
    func handledConstraintFailure(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        let outcome = try db.write { tx -> String in
            try tx.execute("INSERT INTO t (id, name) VALUES (1, \("a"))")
            do {
                try tx.execute("INSERT INTO t (id, name) VALUES (1, \("b"))")
                return "inserted"
            } catch let error as DatabaseError where error.isUniqueViolation {
                try tx.execute("UPDATE t SET name = \("b") WHERE id = 1")
                return "updated"
            }
        }
        #expect(outcome == "updated")
        #expect(try db.read { try $0.queryValue("SELECT name FROM t", as: String.self) } == "b")
    }

    @Test("executeScript runs every statement, skipping comments and empty statements")
    func script() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        try db.write { tx in
            try tx.executeScript("""
                -- a comment first
                CREATE TABLE a (x);;
                /* a block comment */ ;
                INSERT INTO a VALUES ('semi;colon');
                CREATE TABLE b (y)
                """)
        }
        #expect(try db.read { try $0.queryValue("SELECT x FROM a") as String? } == "semi;colon")
        #expect(try db.read { try $0.count("b") } == 0)
        try db.write { tx in try tx.executeScript("  -- nothing but a comment\n") }
    }

    @Test("a nested write on the same thread stops the program with a clear message")
    func nestedWriteTraps() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("test.sqlite")
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let db = try Database(path: path)
            try db.write { _ in
                try db.write { _ in }
            }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Database.write called inside a Database.write"))
    }

    @Test("a write inside a read on the same thread stops the program, since it could deadlock")
    func writeInsideReadTraps() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("test.sqlite")
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let db = try Database(path: path)
            try db.read { _ in
                try db.write { _ in }
            }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Database.write called inside a Database.read"))
    }

    @Test("a write on an event loop's thread stops the program; a read there is allowed")
    func writeOnLoopTraps() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("test.sqlite")
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let db = try Database(path: path)
            try db.write { tx in try tx.execute("CREATE TABLE t (x)") }
            LoopThread.markCurrent()
            _ = try db.read { try $0.count("t") }
            try db.write { tx in try tx.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Database.write called on an event loop"))
    }

    @Test("a connection kept past its closure stops the program when used")
    func escapedConnectionTraps() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("test.sqlite")
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let db = try Database(path: path)
            let escaped = try db.read { $0 }
            _ = try escaped.query("SELECT 1")
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Connection used outside"))
    }
}
