import Foundation
import Glibc
@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// The PostgreSQL relay inside one process: two hubs on one database stand
/// for two instances, so what crosses between them can be watched exactly.
@Suite(
    "The live relay on PostgreSQL", .serialized,
    .enabled(if: InstancePair.available, "needs PostgreSQL (KITH_TEST_DATABASE)"))
struct LiveRelayTests {
    /// A migrated database of its own and hubs on it, stopped at the end.
    final class Bench {
        let postgres: PostgresTestDatabase
        let database: Database
        private var hubs: [LiveHub] = []

        init() throws {
            postgres = try #require(try PostgresTestDatabase.fresh())
            database = try Database(postgresURL: postgres.url)
        }

        func hub(keptEvents: Int64 = 1_024, eventsPerTopic: Int = 64, started: Bool = true) throws -> LiveHub {
            var limits = LiveHub.Limits()
            limits.eventsPerTopic = eventsPerTopic
            let relay = try LiveRelay(url: postgres.url, database: database, logger: Logger(enabled: false), keptEvents: keptEvents)
            let hub = try LiveHub(limits: limits, relay: relay)
            if started { hub.start() }
            hubs.append(hub)
            return hub
        }

        func rowCount() throws -> Int64 {
            try database.read { try $0.queryValue("SELECT count(*) FROM live_events", as: Int64.self) ?? -1 }
        }

        deinit {
            for hub in hubs { hub.stop() }
            database.close()
        }
    }

    /// Waits until `sink` holds `marker`, as a stream's reader would.
    static func wait(for marker: String, in sink: RecordingSink, timeout: Double = 2) -> Bool {
        let deadline = Clock.now + timeout
        while Clock.now < deadline {
            if sink.text.contains(marker) { return true }
            usleep(2_000)
        }
        return sink.text.contains(marker)
    }

    static func waitForListener(_ hub: LiveHub) throws {
        let deadline = Clock.now + 5
        while hub.relay?.listener.backendPID == nil {
            guard Clock.now < deadline else { throw TestError("the relay never listened") }
            usleep(5_000)
        }
    }

    @Test("an event published on one hub reaches the other's streams with the same id, and its own at once")
    func crossesHubs() throws {
        let bench = try Bench()
        let one = try bench.hub(), two = try bench.hub()
        #expect(one.epoch == two.epoch, "one epoch per database")
        try Self.waitForListener(one)
        try Self.waitForListener(two)
        let here = RecordingSink(), there = RecordingSink()
        one.attach(here, topics: ["game:1"], cursor: nil, viewerKey: nil)
        two.attach(there, topics: ["game:1"], cursor: nil, viewerKey: nil)
        one.publish(topic: "game:1", fragments: ["board"])
        #expect(here.text.contains("id: \(one.epoch)-1\n"), "the publisher's own streams hear it before publish returns")
        #expect(Self.wait(for: "id: \(one.epoch)-1\n", in: there))
        #expect(there.text.contains(#"{"topic":"game:1","fragments":["board"]}"#))
        // Its own NOTIFY comes back to the publisher too, and is not delivered twice.
        two.publish(topic: "game:1", fragments: ["score"])
        #expect(Self.wait(for: "id: \(one.epoch)-2\n", in: here))
        usleep(100_000)
        #expect(here.text.components(separatedBy: "id: \(one.epoch)-1\n").count == 2)
        #expect(there.text.components(separatedBy: "id: \(one.epoch)-2\n").count == 2)
    }

    @Test("an event too long for a NOTIFY payload still crosses, read from the table")
    func longEventCrosses() throws {
        let bench = try Bench()
        let one = try bench.hub(), two = try bench.hub()
        try Self.waitForListener(two)
        let there = RecordingSink()
        two.attach(there, topics: ["game:1"], cursor: nil, viewerKey: nil)
        let fragments = (0..<600).map { "spot-row-\($0)" }
        one.publish(topic: "game:1", fragments: fragments)
        #expect(Self.wait(for: "id: \(one.epoch)-1\n", in: there))
        #expect(there.text.contains("\"spot-row-599\"]}"))
    }

    @Test("a hub that was not listening catches up from the table when it connects, in order")
    func catchesUpOnConnect() throws {
        let bench = try Bench()
        let one = try bench.hub(), late = try bench.hub(started: false)
        let sink = RecordingSink()
        late.attach(sink, topics: ["game:1", "tally:2"], cursor: late.cursor, viewerKey: nil)
        one.publish(topic: "game:1", fragments: ["board"])
        one.publish(topic: "tally:2", fragments: ["count"])
        one.publish(topic: "game:1", fragments: ["score"])
        usleep(200_000)
        #expect(!sink.text.contains("invalidate"), "nothing arrives while nobody listens")
        late.start()
        #expect(Self.wait(for: "id: \(one.epoch)-3\n", in: sink))
        let ids = sink.text.split(separator: "\n").filter { $0.hasPrefix("id: ") }
        #expect(ids == ["id: \(one.epoch)-1", "id: \(one.epoch)-2", "id: \(one.epoch)-3"])
    }

    @Test("a hub started later replays cursors rendered before it existed")
    func preloadsKeptEvents() throws {
        let bench = try Bench()
        let one = try bench.hub()
        let cursor = one.cursor
        one.publish(topic: "game:1", fragments: ["board"])
        let fresh = try bench.hub()
        let sink = RecordingSink()
        fresh.attach(sink, topics: ["game:1"], cursor: cursor, viewerKey: nil)
        #expect(sink.text.contains("id: \(one.epoch)-1\n"))
        #expect(!sink.text.contains("reload"))
    }

    @Test("a cursor ahead of this hub waits for the catch-up instead of reloading")
    func cursorAheadIsCaughtUp() throws {
        let bench = try Bench()
        let one = try bench.hub(), behind = try bench.hub(started: false)
        one.publish(topic: "game:1", fragments: ["board"])
        let cursor = one.cursor
        one.publish(topic: "game:1", fragments: ["score"])
        behind.catchUp(toReach: cursor)
        let sink = RecordingSink()
        behind.attach(sink, topics: ["game:1"], cursor: cursor, viewerKey: nil)
        #expect(!sink.text.contains("reload"))
        #expect(sink.text.contains("id: \(one.epoch)-2\n"))
        #expect(!sink.text.contains("id: \(one.epoch)-1\n"))
    }

    @Test("the table stays bounded, and a hub that fell behind what it keeps says reload")
    func prunesAndReloads() throws {
        let bench = try Bench()
        let one = try bench.hub(keptEvents: 8), behind = try bench.hub(keptEvents: 8, started: false)
        let cursor = behind.cursor
        for _ in 0..<200 { one.publish(topic: "game:1", fragments: ["board"]) }
        #expect(try bench.rowCount() <= 8 + 64)
        behind.start()
        let deadline = Clock.now + 5
        while behind.lastEventID < 200 && Clock.now < deadline { usleep(5_000) }
        #expect(behind.lastEventID == 200)
        let sink = RecordingSink()
        behind.attach(sink, topics: ["game:1"], cursor: cursor, viewerKey: nil)
        #expect(sink.text.contains("event: reload"))
        let recent = RecordingSink()
        behind.attach(recent, topics: ["game:1"], cursor: "\(one.epoch)-199", viewerKey: nil)
        #expect(recent.text.contains("id: \(one.epoch)-200\n"))
    }
}

/// SQLite keeps its events in memory: no row is written per event.
@Suite("The live hub on SQLite")
struct LiveOnSQLiteTests {
    @Test("publishing writes nothing to the database")
    func noTableWrites() throws {
        let harness = try AppHarness(configure: { $0.databaseURL = nil })
        guard harness.app.database.dialect == .sqlite else { return }
        #expect(harness.app.live.relay == nil)
        harness.app.live.publish(topic: "game:1", fragments: ["board"])
        #expect(try harness.app.database.read { try $0.queryValue("SELECT count(*) FROM live_events", as: Int64.self) } == 0)
    }
}
