import Dispatch
import Synchronization
import Testing
@testable import KithStorage
import KithTestSupport

@Suite("Reads")
struct ReadTests {
    @Test("readers see committed data", arguments: TestBackend.available)
    func seesCommitted(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        try db.write { tx in try tx.execute("INSERT INTO t (name) VALUES (\("a")), (\("b"))") }
        let names = try db.read { conn in try conn.query("SELECT name FROM t ORDER BY id").map { try $0.get("name", as: String.self) } }
        #expect(names == ["a", "b"])
    }

    @Test("a read keeps one snapshot while another thread commits", arguments: TestBackend.available)
    func stableSnapshot(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        try db.write { tx in try tx.execute("INSERT INTO t (name) VALUES (\("before"))") }

        let readerInside = DispatchSemaphore(value: 0)
        let writeDone = DispatchSemaphore(value: 0)
        let counts = Mutex<[Int]>([])
        let errors = ErrorLog()
        let reader = TestThread {
            errors.record {
                try db.read { conn in
                    let first = try conn.count()
                    readerInside.signal()
                    writeDone.wait()
                    let second = try conn.count()
                    counts.withLock { $0 = [first, second] }
                }
            }
        }
        readerInside.wait()
        try db.write { tx in try tx.execute("INSERT INTO t (name) VALUES (\("during"))") }
        writeDone.signal()
        reader.join()

        #expect(errors.all.isEmpty)
        #expect(counts.withLock { $0 } == [1, 1])
        #expect(try db.read { try $0.count() } == 2)
    }

    @Test("reads proceed while a write transaction is open on another thread", arguments: TestBackend.available)
    func readsDoNotWaitForWriter(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        try db.write { tx in try tx.execute("INSERT INTO t (name) VALUES (\("committed"))") }

        let writeOpen = DispatchSemaphore(value: 0)
        let releaseWriter = DispatchSemaphore(value: 0)
        let errors = ErrorLog()
        let writer = TestThread {
            errors.record {
                try db.write { tx in
                    try tx.execute("INSERT INTO t (name) VALUES (\("uncommitted"))")
                    writeOpen.signal()
                    releaseWriter.wait()
                }
            }
        }
        writeOpen.wait()

        let seen = Atomic<Int>(-1)
        let reader = TestThread {
            errors.record {
                seen.store(try db.read { try $0.count() }, ordering: .relaxed)
            }
        }
        let readFinished = reader.join(timeout: 10)
        releaseWriter.signal()
        writer.join()
        if !readFinished { reader.join() }

        #expect(readFinished, "the read waited for the open write transaction")
        let count = seen.load(ordering: .relaxed)
        #expect(count == 1)
        #expect(errors.all.isEmpty)
        #expect(try db.read { try $0.count() } == 2)
    }

    @Test("a reader connection refuses to write", arguments: TestBackend.available)
    func readersAreReadOnly(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        let error = #expect(throws: DatabaseError.self) {
            try db.read { conn in try conn.execute("INSERT INTO t (name) VALUES (\("x"))") }
        }
        #expect(error?.resultCode == 8) // SQLITE_READONLY
    }

    @Test("forEach streams rows and stops at a thrown error", arguments: TestBackend.available)
    func forEachStreams(backend: TestBackend) throws {
        struct Stop: Error {}
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        try db.write { tx in
            for i in 1...100 { try tx.execute("INSERT INTO t (id, name) VALUES (\(i), \("n"))") }
        }
        var sum = 0
        try db.read { conn in
            try conn.forEach("SELECT id FROM t") { row in sum += try row.get("id") as Int }
        }
        #expect(sum == 5050)

        var seen = 0
        #expect(throws: Stop.self) {
            try db.read { conn in
                try conn.forEach("SELECT id FROM t ORDER BY id") { _ in
                    seen += 1
                    if seen == 3 { throw Stop() }
                }
            }
        }
        #expect(seen == 3)
        // The statement was reset: the same query runs again from the start.
        #expect(try db.read { try $0.query("SELECT id FROM t ORDER BY id").count } == 100)
    }

    @Test("query(_:decode:) reads each row in place, in a read and in a write, with Row's errors", arguments: TestBackend.available)
    func decodeInPlace(backend: TestBackend) throws {
        struct Named: Equatable {
            let id: Int64
            let name: String?
        }
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        try db.write { tx in
            for i in 1...40 { try tx.execute("INSERT INTO t (id, name) VALUES (\(i), \(i % 10 == 0 ? nil : "n\(i)"))") }
        }
        let expected = (1...40).map { Named(id: Int64($0), name: $0 % 10 == 0 ? nil : "n\($0)") }
        let sql: SQL = "SELECT id, name FROM t ORDER BY id"
        let read = try db.read { conn in try conn.query(sql) { row in Named(id: try row.get(0), name: try row.get(1)) } }
        #expect(read == expected)
        // Twice more: the cached statement is reused, row by row as before.
        #expect(try db.read { conn in try conn.query(sql) { row in try row.get(0) as Int64 } } == expected.map(\.id))
        let written = try db.write { tx in try tx.query(sql) { row in Named(id: try row.get(0), name: try row.get(1)) } }
        #expect(written == expected)
        let copies = try db.read { conn in try conn.query("SELECT id, name FROM t WHERE id <= 2 ORDER BY id") { $0.copy() } }
        #expect(try copies.map { try $0.get("name") as String } == ["n1", "n2"])

        let null = #expect(throws: RowDecodingError.self) {
            try db.read { conn in try conn.query(sql) { row in try row.get(1) as String } }
        }
        #expect(null?.column == "name")
        #expect(null?.problem == .unexpectedNull)
        let outside = #expect(throws: RowDecodingError.self) {
            try db.read { conn in try conn.query(sql) { row in try row.get(2) as Int64 } }
        }
        #expect(outside?.problem == .indexOutOfRange(count: 2))
        // An error stops the query; the statement is reset and runs again whole.
        #expect(try db.read { conn in try conn.query(sql) { try $0.get(0) as Int64 } }.count == 40)
    }

    @Test("a row view kept past its closure stops the program when read")
    func escapedRowViewTraps() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("test.sqlite")
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let db = try Database(path: path)
            try db.write { tx in try tx.execute("CREATE TABLE t (x)"); try tx.execute("INSERT INTO t VALUES (1), (2)") }
            let kept = try db.read { conn in try conn.query("SELECT x FROM t") { $0 } }
            _ = try kept[0].get(0) as Int64
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("RowView was read outside"))
    }

    @Test("queryOne, queryValue, changes and lastInsertRowID")
    func helpers() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        try db.write { tx throws in
            try tx.execute("INSERT INTO t (name) VALUES (\("a")), (\("b")), (\("c"))")
            #expect(tx.lastInsertRowID == 3)
            #expect(tx.changes == 3)
            #expect(try tx.execute("UPDATE t SET name = \("z") WHERE id > \(1)") == 2)
            // DDL reports no changes rather than the previous statement's count.
            #expect(try tx.execute("CREATE TABLE other (x)") == 0)
        }
        try db.read { conn throws in
            #expect(try conn.queryOne("SELECT name FROM t WHERE id = \(2)")?.get("name") as String? == "z")
            #expect(try conn.queryOne("SELECT name FROM t WHERE id = \(99)") == nil)
            #expect(try conn.queryValue("SELECT max(id) FROM t") as Int? == 3)
            #expect(try conn.queryValue("SELECT name FROM t WHERE id = \(99)") as String? == nil)
        }
    }
}
