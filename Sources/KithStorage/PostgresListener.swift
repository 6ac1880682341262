import CLazyLibraries
import CPostgres
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One PostgreSQL session that does nothing but LISTEN on a channel, for
/// hearing what other processes on the same database commit.
///
/// `run` blocks its caller's thread (the owner gives it one of its own):
/// it connects, LISTENs, says so through `onConnect`, then waits on the
/// session's socket and hands each notification's payload to
/// `onNotification`, in the order the server committed them. When the
/// session drops (a restart, `pg_terminate_backend`, a dead network) it
/// connects again, with a growing pause, and calls `onConnect` again:
/// notifications sent while no session listened are lost, so that is the
/// owner's cue to catch up from its own table.
public final class PostgresListener: Sendable {
    private let url: String
    private let channel: String
    private let applicationName: String
    /// Written to by `stop`, so a `run` waiting in poll(2) wakes at once.
    private let wake: (read: Int32, write: Int32)
    private let stopped = Atomic<Bool>(false)
    private let pid = Mutex<Int32?>(nil)
    /// With nothing heard for this long the session is probed, so a peer
    /// that vanished without closing the socket is noticed and replaced.
    private let probeSeconds: Double

    /// `applicationName` is what `pg_stat_activity` shows for the session,
    /// so an operator (or a test) can tell whose listener it is.
    public init(url: String, channel: String, applicationName: String, probeSeconds: Double = 30) {
        self.url = url
        self.channel = channel
        self.applicationName = applicationName
        self.probeSeconds = probeSeconds
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        wake = (fds[0], fds[1])
    }

    deinit {
        if wake.read >= 0 { Glibc.close(wake.read) }
        if wake.write >= 0 { Glibc.close(wake.write) }
    }

    /// The server process of the listening session while connected: what
    /// `pg_terminate_backend` takes, for tests that cut the session.
    public var backendPID: Int32? { pid.withLock { $0 } }

    /// Makes `run` return soon; safe from any thread, more than once.
    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    /// Listens until `stop`. `onConnect` runs after every successful LISTEN,
    /// before any notification of that session; `onFailure` is told why a
    /// session could not be had or was lost.
    public func run(onConnect: () -> Void, onNotification: (String) -> Void, onFailure: (String) -> Void) {
        var pause = 0.1
        while !isStopped {
            guard let handle = connect(onFailure: onFailure) else {
                waitForWake(seconds: pause)
                pause = min(pause * 2, 2)
                continue
            }
            pause = 0.1
            pid.withLock { $0 = PQbackendPID(handle) }
            onConnect()
            let reason = listen(handle, onNotification: onNotification)
            pid.withLock { $0 = nil }
            PQfinish(handle)
            if let reason { onFailure(reason) }
        }
    }

    private func connect(onFailure: (String) -> Void) -> OpaquePointer? {
        if let why = kith_lazy_libpq_error() {
            onFailure("libpq is not installed: \(String(cString: why))")
            return nil
        }
        // `dbname` may be a whole URL or conninfo string (expand_dbname);
        // the application name is added to whatever it says.
        let keys = ["dbname", "application_name"], values = [url, applicationName]
        var keyPointers = keys.map { strdup($0) } + [nil]
        var valuePointers = values.map { strdup($0) } + [nil]
        defer { (keyPointers + valuePointers).forEach { free($0) } }
        let connection = keyPointers.withUnsafeMutableBufferPointer { keys in
            valuePointers.withUnsafeMutableBufferPointer { values in
                keys.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: keys.count) { keys in
                    values.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: values.count) { values in
                        PQconnectdbParams(keys, values, 1)
                    }
                }
            }
        }
        guard let handle = connection else { return nil }
        guard PQstatus(handle) == CONNECTION_OK else {
            onFailure(Self.message(handle))
            PQfinish(handle)
            return nil
        }
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        let result = PQexec(handle, "LISTEN \"\(channel)\"")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            onFailure(Self.message(handle))
            PQfinish(handle)
            return nil
        }
        return handle
    }

    /// Hands on notifications until the session fails (its reason) or `stop` (nil).
    private func listen(_ handle: OpaquePointer, onNotification: (String) -> Void) -> String? {
        let socket = PQsocket(handle)
        var quietSince = Self.now()
        while !isStopped {
            var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, 1_000)
            if ready < 0 && errno != EINTR { return "poll failed: \(errno)" }
            if fds[1].revents != 0 { drainWake() }
            if fds[0].revents != 0 {
                quietSince = Self.now()
                guard PQconsumeInput(handle) == 1 else { return Self.message(handle) }
            } else if Self.now() - quietSince > probeSeconds {
                // A blocking round trip; notifications that arrive meanwhile
                // wait in libpq and are read just below.
                quietSince = Self.now()
                let result = PQexec(handle, "SELECT 1")
                let healthy = PQresultStatus(result) == PGRES_TUPLES_OK
                PQclear(result)
                if !healthy { return Self.message(handle) }
            }
            while let notification = PQnotifies(handle) {
                let payload = String(cString: notification.pointee.extra)
                PQfreemem(notification)
                onNotification(payload)
            }
            if PQstatus(handle) != CONNECTION_OK { return Self.message(handle) }
        }
        return nil
    }

    private func waitForWake(seconds: Double) {
        var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, Int32(seconds * 1_000))
    }

    /// Empties the pipe but leaves `stopped` to say what the wake meant.
    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &buffer, buffer.count) > 0 {}
    }

    private static func message(_ handle: OpaquePointer) -> String {
        Substring(String(cString: PQerrorMessage(handle))).trimmingSpaces.description
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// One PostgreSQL session of its own, outside `Database`'s pool, for work
/// that must commit on its own terms: it takes its own advisory lock, not
/// the one every `Database.write` takes, so it can run from an `afterCommit`
/// action or beside an open write without waiting on (or deadlocking with)
/// the application's writers.
public final class PostgresSession: Sendable {
    /// What a `transaction` body may do: store SQL, and NOTIFY at commit.
    public struct Transaction {
        public let connection: Connection

        /// Queues `payload` for `channel`'s listeners; sent only if the
        /// transaction commits, and in commit order.
        public func notify(channel: String, payload: String) throws(DatabaseError) {
            _ = try connection.query("SELECT pg_notify(\(channel), \(payload))")
        }
    }

    private let url: String
    private let connection: Mutex<PostgresConnection?>

    /// Connects at the first transaction: an instance that never publishes
    /// holds no session for it.
    public init(url: String) {
        self.url = url
        connection = Mutex(nil)
    }

    /// Runs `body` in a READ COMMITTED transaction that first takes the
    /// transaction-scoped advisory lock `lockKey`, so such transactions of
    /// every process run one at a time, and commits. A dropped session is
    /// opened again on the next call.
    public func transaction<T>(lockKey: Int64, _ body: (Transaction) throws -> T) throws -> T {
        try connection.withLock { slot in
            let session: PostgresConnection
            if let open = slot {
                session = open
            } else {
                session = try PostgresConnection.open(url: url, statementCacheCapacity: 16)
                slot = session
            }
            let wrapped = Connection(.postgres(session))
            wrapped.lend(to: ThreadIdentity.current)
            defer { wrapped.reclaim() }
            do {
                try session.executeScript("BEGIN ISOLATION LEVEL READ COMMITTED")
                _ = try session.query("SELECT pg_advisory_xact_lock(\(lockKey))", cached: true)
                let value = try body(Transaction(connection: wrapped))
                try session.executeScript("COMMIT")
                return value
            } catch {
                if let failure = error as? DatabaseError, failure.isConnectionFailure {
                    session.close()
                    slot = nil
                } else {
                    session.rollbackIfNeeded()
                }
                throw error
            }
        }
    }

    public func close() {
        connection.withLock { slot in
            slot?.close()
            slot = nil
        }
    }
}
