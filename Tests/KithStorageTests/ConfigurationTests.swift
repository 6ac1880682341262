import Dispatch
import Synchronization
import Testing
@testable import KithStorage
import KithTestSupport

@Suite("Connection configuration")
struct ConfigurationTests {
    private struct Settings: Equatable {
        var journalMode: String
        var foreignKeys: Int
        var synchronous: Int
        var busyTimeout: Int

        init(_ db: some Queryable) throws {
            journalMode = try db.queryValue("PRAGMA journal_mode") ?? ""
            foreignKeys = try db.queryValue("PRAGMA foreign_keys") ?? -1
            synchronous = try db.queryValue("PRAGMA synchronous") ?? -1
            busyTimeout = try db.queryValue("PRAGMA busy_timeout") ?? -1
        }

        static let expected = Settings(journalMode: "wal", foreignKeys: 1, synchronous: 1, busyTimeout: 5_000)

        private init(journalMode: String, foreignKeys: Int, synchronous: Int, busyTimeout: Int) {
            self.journalMode = journalMode
            self.foreignKeys = foreignKeys
            self.synchronous = synchronous
            self.busyTimeout = busyTimeout
        }
    }

    @Test("WAL, foreign keys, synchronous=NORMAL and the busy timeout are set on the writer and on every reader")
    func everyConnection() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database(readers: 4)
        #expect(try db.write { try Settings($0) } == .expected)

        // Four threads each hold a reader at the same moment, so between them
        // they see all four connections.
        let arrived = Atomic<Int>(0)
        let allHere = DispatchSemaphore(value: 0)
        let seen = Mutex<[(ObjectIdentifier, Settings)]>([])
        let errors = ErrorLog()
        let threads = (0..<4).map { _ in
            TestThread {
                errors.record {
                    try db.read { conn in
                        let settings = try Settings(conn)
                        seen.withLock { $0.append((ObjectIdentifier(conn), settings)) }
                        if arrived.add(1, ordering: .acquiringAndReleasing).newValue == 4 {
                            for _ in 0..<4 { allHere.signal() }
                        }
                        allHere.wait()
                    }
                }
            }
        }
        threads.forEach { $0.join() }
        #expect(errors.all.isEmpty)
        let results = seen.withLock { $0 }
        #expect(Set(results.map(\.0)).count == 4)
        #expect(results.allSatisfy { $0.1 == .expected })
    }

    @Test("closing checkpoints the WAL away, and the file reopens with its data")
    func closeAndReopen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("test.sqlite")
        do {
            let db = try directory.database()
            try db.write { tx in try tx.execute("INSERT INTO t (name) VALUES (\("kept"))") }
            db.close()
            #expect(!FileManagerShim.exists(path + "-wal"))
        }
        let reopened = try Database(path: path)
        #expect(try reopened.read { try $0.queryValue("SELECT name FROM t") as String? } == "kept")
    }

    @Test("releasing memory empties the writer's page cache and loses nothing")
    func releaseMemory() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        let filler = String(repeating: "x", count: 1_000)
        try db.write { tx in
            for index in 0..<2_000 { try tx.execute("INSERT INTO t (name) VALUES (\(filler + String(index)))") }
        }
        let before = db.writerPageCacheBytes
        #expect(before > 1_000_000)
        db.releaseMemory()
        #expect(db.writerPageCacheBytes < before / 10)
        #expect(try db.read { try $0.queryValue("SELECT count(*) FROM t") as Int? } == 2_000)
        try db.write { tx in try tx.execute("INSERT INTO t (name) VALUES (\("after"))") }
        #expect(try db.read { try $0.queryValue("SELECT count(*) FROM t") as Int? } == 2_001)
    }

    @Test("opening a path that cannot be created fails with a clear error")
    func unopenable() throws {
        let directory = try TemporaryDirectory()
        let error = try #require(throws: DatabaseError.self) {
            try Database(path: directory.file("missing/dir/db.sqlite"))
        }
        #expect(error.resultCode == 14) // SQLITE_CANTOPEN
        #expect(error.message.contains("missing/dir/db.sqlite"))
    }
}
