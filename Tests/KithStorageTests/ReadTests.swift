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
