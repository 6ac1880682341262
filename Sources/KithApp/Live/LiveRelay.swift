import Glibc
import KithHTTP
import KithStorage
import Synchronization

/// Live events for every instance on one PostgreSQL database.
///
/// A single SQLite process keeps its event sequence in memory (LiveHub).
/// Several processes on one PostgreSQL database must share it, or a change
/// made through one would never reach streams held by another, and a cursor
/// rendered by one would mean nothing to the next. So on PostgreSQL:
///
/// - The sequence is the `live_events` table. A publish inserts a row and
///   NOTIFYs `kith_live` in one transaction on a session of the relay's own,
///   under an advisory lock of its own: publishes of all instances commit
///   one at a time, so ids grow in commit order and "every row after the
///   last id seen" is complete. (Not the app's write lock: a publish runs in
///   an `afterCommit` action, and must never wait on the app's writers.)
/// - The publishing instance delivers its own event at once; every instance
///   (the publisher too, which then ignores it) hears the NOTIFY on one
///   dedicated listening session and delivers it to its hub. An event
///   carries ids only, as it does on SQLite.
/// - Whenever something may have been missed — the listener (re)connected,
///   an id arrived that is not the next one, a payload could not be read,
///   a stream brought a cursor this instance has not reached yet — the relay
///   reads the table from its last id. Ids are dense but for rolled-back
///   publishes, so a gap costs one small query and is usually empty.
/// - The epoch is stored once in `settings` and shared, so a cursor from one
///   instance replays on another. A new instance starts from the newest kept
///   rows; a cursor older than those (or than the table keeps) gets `reload`.
/// - The table is pruned as it goes, to the newest `keptEvents` rows.
///
/// Deliveries into the hub are serialised by `delivering`, so events reach
/// every stream in id order whichever thread found them first.
public final class LiveRelay: Sendable {
    static let channel = "kith_live"
    /// The advisory lock of publishes: distinct from the app's write lock.
    static let lockKey: Int64 = 0x4B4C_6976  // "KLiv"

    public let epoch: String
    let keptEvents: Int64
    private let database: Database
    private let session: PostgresSession
    let listener: PostgresListener
    private let logger: Logger
    private let delivering = Mutex(())
    private let thread = Mutex<pthread_t?>(nil)
    private let stopped = Atomic<Bool>(false)

    /// Reads (or makes) the shared epoch; the sessions open when first needed.
    public init(url: String, database: Database, logger: Logger, keptEvents: Int64 = 1_024) throws {
        self.database = database
        self.logger = logger
        self.keptEvents = keptEvents
        epoch = try Self.sharedEpoch(database)
        session = PostgresSession(url: url)
        listener = PostgresListener(url: url, channel: Self.channel, applicationName: "kith-live \(getpid())")
    }

    /// Made by the first instance ever to start and read by every later one.
    static func sharedEpoch(_ database: Database) throws -> String {
        try database.write { tx in
            try tx.execute("""
                INSERT INTO settings (key, value) VALUES ('live_epoch', \(LiveHub.newEpoch()))
                ON CONFLICT (key) DO NOTHING
                """)
            return try tx.queryValue("SELECT value FROM settings WHERE key = 'live_epoch'", as: String.self) ?? "0"
        }
    }

    // MARK: Publishing

    func publish(topic: String, data: String, to hub: LiveHub) {
        guard !stopped.load(ordering: .relaxed) else { return }
        let keep = keptEvents
        do {
            let id = try session.transaction(lockKey: Self.lockKey) { tx in
                let inserted = try tx.connection.queryValue(
                    "INSERT INTO live_events (topic, data) VALUES (\(topic), \(data)) RETURNING id", as: Int64.self)
                guard let id = inserted else { throw InsertReturnedNoRow(sql: "INSERT INTO live_events") }
                try tx.notify(channel: Self.channel, payload: Self.payload(id: id, topic: topic, data: data))
                // Every 64th publish trims the table: a bounded table, at the
                // cost of one indexed range delete now and then.
                if id % 64 == 0 { try tx.connection.execute("DELETE FROM live_events WHERE id <= \(id - keep)") }
                return id
            }
            receive(id: UInt64(id), topic: topic, data: data, into: hub)
        } catch {
            // The change itself is committed; pages following it refresh at
            // their next event or reload.
            logger.log(["level": "error", "msg": "live event not published", "topic": topic, "cause": String(describing: error)])
        }
    }

    /// `ID TOPIC DATA`, one line each: the data is JSON, so it holds no
    /// newline. A NOTIFY payload must stay under 8000 bytes; a longer event
    /// sends its id alone, and listeners read it from the table.
    static func payload(id: Int64, topic: String, data: String) -> String {
        let full = "\(id)\n\(topic)\n\(data)"
        return full.utf8.count < 7_900 ? full : String(id)
    }

    static func parse(_ payload: String) -> (id: UInt64, topic: String, data: String)? {
        let parts = payload.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let id = UInt64(parts[0]), !parts[1].isEmpty else { return nil }
        return (id, String(parts[1]), String(parts[2]))
    }

    // MARK: Delivering

    /// Hands one event to the hub if it is the next; otherwise reads
    /// whatever came between from the table first.
    func receive(id: UInt64, topic: String, data: String, into hub: LiveHub) {
        delivering.withLock { _ in
            let last = hub.lastEventID
            guard id > last else { return }
            if id > last + 1 {
                catchUpLocked(hub, through: id - 1)
                // Still a hole: pruned before it was read, or rolled back.
                if hub.lastEventID + 1 < id { hub.forget(through: id - 1) }
            }
            hub.deliver(id: id, topic: topic, data: data)
        }
    }

    /// Reads every kept event after the hub's last id.
    func catchUp(_ hub: LiveHub) {
        delivering.withLock { _ in catchUpLocked(hub, through: nil) }
    }

    private func catchUpLocked(_ hub: LiveHub, through upper: UInt64?) {
        let after = Int64(hub.lastEventID)
        do {
            let rows = try database.read { connection in
                if let upper {
                    try connection.query(
                        "SELECT id, topic, data FROM live_events WHERE id > \(after) AND id <= \(Int64(upper)) ORDER BY id")
                } else {
                    try connection.query("SELECT id, topic, data FROM live_events WHERE id > \(after) ORDER BY id")
                }
            }
            for (index, row) in rows.enumerated() {
                let id = UInt64(try row.get(0, as: Int64.self))
                // A hole after the last id seen: rows pruned before this
                // instance read them (or, rarely, a publish rolled back).
                // The buffers cannot replay across it, so cursors from
                // before it must reload.
                if index == 0, id > UInt64(after) + 1 { hub.forget(through: id - 1) }
                hub.deliver(id: id, topic: try row.get(1, as: String.self), data: try row.get(2, as: String.self))
            }
        } catch {
            logger.log(["level": "error", "msg": "live events not caught up", "cause": String(describing: error)])
        }
    }

    /// Loads the newest kept events into a hub that has none yet, so
    /// cursors rendered by other instances before this one started replay.
    func preload(_ hub: LiveHub) throws {
        let keep = keptEvents
        let rows = try database.read { connection in
            try connection.query("SELECT id, topic, data FROM live_events ORDER BY id DESC LIMIT \(keep)")
        }
        guard let oldest = rows.last else { return }
        delivering.withLock { _ in
            hub.forget(through: UInt64(max((try? oldest.get(0, as: Int64.self)) ?? 1, 1) - 1))
            for row in rows.reversed() {
                guard let id = try? row.get(0, as: Int64.self), let topic = try? row.get(1, as: String.self),
                    let data = try? row.get(2, as: String.self)
                else { continue }
                hub.deliver(id: UInt64(id), topic: topic, data: data)
            }
        }
    }

    // MARK: Listening

    func start(feeding hub: LiveHub) {
        thread.withLock { thread in
            guard thread == nil, !stopped.load(ordering: .relaxed) else { return }
            let listener = listener
            let logger = logger
            thread = Threads.spawn(name: "kith-live-relay") { [weak hub, self] in
                listener.run(
                    onConnect: { if let hub { catchUp(hub) } },
                    onNotification: { payload in
                        guard let hub else { return }
                        if let event = Self.parse(payload) {
                            receive(id: event.id, topic: event.topic, data: event.data, into: hub)
                        } else {
                            catchUp(hub)
                        }
                    },
                    onFailure: { reason in logger.log(["level": "warn", "msg": "live listener reconnecting", "cause": reason]) })
            }
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        listener.stop()
        if let running = thread.withLock({ $0 }) { Threads.join(running) }
        session.close()
    }
}
