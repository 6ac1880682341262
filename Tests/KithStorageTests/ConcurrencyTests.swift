import Dispatch
import Glibc
import Synchronization
import Testing
@testable import KithStorage
import KithTestSupport

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("4 threads × 200 writes each, with readers running alongside, are all counted", arguments: TestBackend.available)
    func concurrentWrites(backend: TestBackend) throws {
        let store = try TestStore(backend, readers: 2)
        defer { store.finish() }
        let db = store.database
        let errors = ErrorLog()
        let writers = (0..<4).map { thread in
            TestThread {
                for i in 0..<200 {
                    errors.record {
                        try db.write { tx in _ = try tx.execute("INSERT INTO t (name) VALUES (\("\(thread)-\(i)"))") }
                    }
                }
            }
        }
        // More reading threads than readers, so some wait for the pool.
        let readers = (0..<4).map { _ in
            TestThread {
                for _ in 0..<100 {
                    errors.record {
                        let count = try db.read { try $0.count() }
                        if count < 0 || count > 800 { throw DatabaseError(resultCode: 1, message: "impossible count \(count)") }
                    }
                }
            }
        }
        (writers + readers).forEach { $0.join() }
        #expect(errors.all.isEmpty)
        #expect(try db.read { try $0.count() } == 800)
        #expect(try db.read { try $0.queryValue("SELECT count(DISTINCT name) FROM t") as Int? } == 800)
    }

    @Test("close waits for running work and makes waiting callers fail instead of hanging", arguments: TestBackend.available)
    func closeWhileBusy(backend: TestBackend) throws {
        let store = try TestStore(backend, readers: 1)
        defer { store.finish() }
        let db = store.database
        let outcomes = Mutex<[String]>([])
        let threads = (0..<6).map { i in
            TestThread {
                do {
                    if i.isMultiple(of: 2) {
                        try db.read { conn in _ = try conn.count() }
                    } else {
                        try db.write { tx in try tx.execute("INSERT INTO t (name) VALUES (\("x"))") }
                    }
                    outcomes.withLock { $0.append("ok") }
                } catch let error as DatabaseError where error.message == "the database is closed" {
                    outcomes.withLock { $0.append("closed") }
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                }
            }
        }
        db.close()
        threads.forEach { $0.join() }
        #expect(outcomes.withLock { $0 }.allSatisfy { $0 == "ok" || $0 == "closed" })
    }

    @Test("readers open on demand: one at first, more only for concurrent reads, never more than readerCount")
    func readersOpenOnDemand() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database(readers: 3)
        #expect(db.openReaderCount == 1, "a quiet database holds one reader")
        for _ in 0..<20 { #expect(try db.read { try $0.count() } == 0) }
        #expect(db.openReaderCount == 1, "reads one after another share it")

        // Five threads read at once and hold their reader until all that can are in.
        let inside = Mutex(0)
        let release = DispatchSemaphore(value: 0)
        let errors = ErrorLog()
        let threads = (0..<5).map { _ in
            TestThread {
                errors.record {
                    try db.read { conn in
                        inside.withLock { $0 += 1 }
                        release.wait()
                        _ = try conn.count()
                    }
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while inside.withLock({ $0 }) < 3 && ContinuousClock.now < deadline { usleep(1000) }
        usleep(20_000)
        #expect(inside.withLock { $0 } == 3, "three readers at most, so two threads wait")
        #expect(db.openReaderCount == 3)
        for _ in 0..<5 { release.signal() }
        threads.forEach { $0.join() }
        #expect(errors.all.isEmpty)
        #expect(inside.withLock { $0 } == 5)
        #expect(db.openReaderCount == 3)
        db.close()
        #expect(throws: DatabaseError.self) { try db.read { try $0.count() } }
    }
}
