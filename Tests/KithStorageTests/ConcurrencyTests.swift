import Synchronization
import Testing
@testable import KithStorage
import KithTestSupport

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("4 threads × 200 writes each, with readers running alongside, are all counted")
    func concurrentWrites() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database(readers: 2)
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

    @Test("close waits for running work and makes waiting callers fail instead of hanging")
    func closeWhileBusy() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database(readers: 1)
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
}
