#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite
import KithSync
import Synchronization

/// A SQLite database file (or a PostgreSQL database, see
/// `init(postgresURL:)`) opened for a multi-threaded server: one writer
/// connection and a pool of read-only connections.
///
/// All calls are synchronous and block the calling thread; they are meant for
/// a pool of OS threads, not for Swift concurrency.
///
/// - WAL mode: readers work from a snapshot and never wait for the writer, nor
///   the writer for them. Writes are serialized on the single writer.
/// - Durability: `synchronous=NORMAL` in WAL mode. A transaction whose `write`
///   returned survives the process being killed at any point; after a power
///   loss or OS crash the most recent commits may be missing (never partially
///   applied, and the file is never corrupt). That is the guarantee Kith needs.
/// - Foreign keys are enforced on every connection.
public final class Database: Sendable {
    public struct Configuration: Sendable {
        /// Read-only connections; as many reads run at once.
        public var readerCount: Int = 4
        /// How long a statement waits for a lock held by another process
        /// before failing with `SQLITE_BUSY`.
        public var busyTimeoutMilliseconds: Int32 = 5_000
        /// Prepared statements kept per connection, keyed by SQL text; 0 turns
        /// the cache off.
        public var statementCacheCapacity: Int = 256

        public init() {}
    }

    /// The file for SQLite; for PostgreSQL, the URL without its password.
    public let path: String
    public let dialect: SQLDialect
    private let writer: Lock<Connection?>
    /// The thread inside `write`, or 0; see `Connection.owner` for why a relaxed
    /// load is enough to detect re-entry.
    private let writingThread = Atomic<UInt>(0)
    private let readers: ReaderPool
    private let isClosed = Atomic<Bool>(false)
    private let counter: StatementCounter

    /// Statements run so far on every connection, transaction control
    /// included. Tests compare it around a request: a page that queries
    /// inside a loop runs more statements as its rows grow.
    public var statementsRun: Int { counter.value }

    public init(path: String, configuration: Configuration = Configuration()) throws {
        precondition(configuration.readerCount >= 1, "a Database needs at least one reader")
        self.path = path
        self.dialect = .sqlite
        let counter = StatementCounter()
        self.counter = counter
        // The writer first: it creates the file and switches it to WAL, which a
        // read-only connection cannot do.
        let writer = try Connection(.sqlite(SQLiteConnection.open(
            path: path,
            readOnly: false,
            busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds,
            statementCacheCapacity: configuration.statementCacheCapacity
        )))
        let open: ReaderPool.Opener = { () throws(DatabaseError) in
            try Connection(.sqlite(SQLiteConnection.open(
                path: path,
                readOnly: true,
                busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds,
                statementCacheCapacity: configuration.statementCacheCapacity
            )))
        }
        (self.writer, self.readers) = try Self.pool(writer: writer, readers: configuration.readerCount, counter: counter, open: open)
    }

    /// Opens a PostgreSQL database: `url` is a libpq connection string or
    /// `postgres://` URL. `readerCount` sessions serve reads and one more
    /// serves this process's writes; all open on demand except the first
    /// two, so an unreachable server fails here.
    public init(postgresURL url: String, configuration: Configuration = Configuration()) throws {
        precondition(configuration.readerCount >= 1, "a Database needs at least one reader")
        self.path = Self.redacted(url)
        self.dialect = .postgres
        let counter = StatementCounter()
        self.counter = counter
        let open: ReaderPool.Opener = { () throws(DatabaseError) in
            try Connection(.postgres(PostgresConnection.open(url: url, statementCacheCapacity: configuration.statementCacheCapacity)))
        }
        (self.writer, self.readers) = try Self.pool(writer: open(), readers: configuration.readerCount, counter: counter, open: open)
    }

    /// The writer and a reader pool whose first reader is open already, so a
    /// database that cannot be read fails at once.
    private static func pool(writer: Connection, readers: Int, counter: StatementCounter, open: @escaping ReaderPool.Opener) throws -> (Lock<Connection?>, ReaderPool) {
        let first: Connection
        do {
            first = try open()
        } catch {
            writer.close()
            throw error
        }
        writer.statementCounter = counter
        first.statementCounter = counter
        let pool = ReaderPool(capacity: readers, first: first) { () throws(DatabaseError) in
            let reader = try open()
            reader.statementCounter = counter
            return reader
        }
        return (Lock(writer), pool)
    }

    /// A URL fit for logs: without its password.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":…" + String(url[at...])
    }

    deinit {
        close()
    }

    /// Opens with the default configuration but `readers` reader connections.
    public convenience init(path: String, readers: Int) throws {
        var configuration = Configuration()
        configuration.readerCount = readers
        try self.init(path: path, configuration: configuration)
    }

    public var readerCount: Int { readers.capacity }

    /// Readers opened so far: they open on demand, up to `readerCount`.
    public var openReaderCount: Int { readers.openedCount }

    // MARK: - Writing

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction on the writer and commits
    /// it, returning what `body` returned. If `body` throws, or the commit fails,
    /// everything is rolled back and the error rethrown. Blocks while another
    /// thread is writing.
    ///
    /// Calling `write` from inside a `write` (or from an `afterCommit` action) or
    /// from inside a `read` on the same thread is a programming error and stops
    /// the program. Reading inside a write is allowed, but such a read does not
    /// see the write's uncommitted changes; query through the `Transaction`
    /// for that.
    @discardableResult
    public func write<T>(_ body: (Transaction) throws -> T) throws -> T {
        // A write can wait for the writer behind another thread's transaction;
        // on an event loop that wait would stall every connection it serves.
        precondition(!LoopThread.isCurrent, "Database.write called on an event loop: only reads may run inline")
        let thread = ThreadIdentity.current
        precondition(
            writingThread.load(ordering: .relaxed) != thread,
            "Database.write called inside a Database.write (or an afterCommit action) on the same thread"
        )
        // A write may take a reader (a read inside it, an afterCommit action, a
        // backup) but a read may not take the writer: with both orders allowed,
        // a writer waiting for a reader and readers waiting for the writer
        // would deadlock.
        precondition(
            !readers.isBorrowed(by: thread),
            "Database.write called inside a Database.read on the same thread; do the reads inside the write instead"
        )
        var result: T?
        try writer.withLock { writer in
            guard let writer else { throw DatabaseError.closed }
            writingThread.store(thread, ordering: .relaxed)
            writer.lend(to: thread)
            defer {
                writer.reclaim()
                writingThread.store(0, ordering: .relaxed)
            }
            let transaction = Transaction(connection: writer)
            try writer.beginWrite()
            do {
                result = try body(transaction)
                // SQLite ends a transaction by itself after some errors (disk
                // full, I/O), or `body` may have run COMMIT or ROLLBACK; a
                // closure that caught such an error and returned must not be
                // reported as committed.
                guard writer.isInTransaction else {
                    _ = transaction.close()
                    throw DatabaseError.misuse("the transaction ended before Database.write could commit it (an earlier error rolled it back, or the closure ran COMMIT or ROLLBACK)")
                }
                try writer.commit()
            } catch {
                _ = transaction.close()
                writer.rollbackIfNeeded()
                throw error
            }
            // Still holding the writer, so actions of successive transactions
            // run in commit order.
            for action in transaction.close() {
                action()
            }
        }
        // Set exactly when the closure above returned normally.
        return result!
    }

    // MARK: - Reading

    /// Runs `body` on a reader connection inside a read transaction, so every
    /// query in it sees the same snapshot: the database as of the first query.
    /// Never waits for the writer; blocks only while every reader is in use.
    ///
    /// The connection is read-only: a write through it fails with
    /// `SQLITE_READONLY`. A nested `read`, or a `write`, inside `body` on the same
    /// thread is a programming error and stops the program.
    @discardableResult
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try readers.withConnection { reader in
            try reader.beginRead()
            let result: T
            do {
                result = try body(reader)
            } catch {
                reader.rollbackIfNeeded()
                throw error
            }
            // Committing a read transaction cannot lose data; it only releases
            // the snapshot. Should it fail, end the transaction regardless, so
            // the next borrower does not inherit a stale snapshot.
            do {
                try reader.commit()
            } catch {
                reader.rollbackIfNeeded()
                throw error
            }
            return result
        }
    }

    /// Throws unless a reader can run a statement now: for `/healthz`.
    public func checkReachable() throws {
        try read { connection in try connection.ping() }
    }

    // MARK: - Backup

    /// Writes a complete, consistent copy of the database to a new file at
    /// `destination`, while other threads go on reading and writing. The copy
    /// holds every transaction committed before the call, is compacted, and is
    /// flushed to stable storage before this returns.
    ///
    /// Refuses to touch an existing file. Uses a reader, so it may be called
    /// inside `write` but not inside `read`.
    public func backup(to destination: String) throws {
        guard dialect == .sqlite else {
            throw DatabaseError.misuse("a PostgreSQL database is backed up with pg_dump, not kith backup")
        }
        var status = stat()
        guard lstat(destination, &status) != 0 else {
            throw DatabaseError(resultCode: SQLITE_CANTOPEN, message: "refusing to overwrite \(destination): backups go to a new file")
        }
        try readers.withConnection { reader in
            // VACUUM INTO reads one snapshot in its own read transaction (it
            // refuses to run inside one), so the copy is consistent however
            // many commits land meanwhile.
            _ = try reader.execute("VACUUM INTO \(destination)", cached: false)
        }
        // SQLite does not sync the file VACUUM INTO writes.
        try FileSync.flush(fileAt: destination)
    }

    /// Hands back memory held only for speed: SQLite's cached pages not in
    /// use. For the end of start-up, when migrations have touched every
    /// table; the cache fills again with what requests actually read.
    public func releaseMemory() {
        guard dialect == .sqlite, !isClosed.load(ordering: .acquiring) else { return }
        writer.withLock { writer in
            guard let connection = writer, case .sqlite(let sqlite) = connection.backend else { return }
            connection.lend(to: ThreadIdentity.current)
            defer { connection.reclaim() }
            sqlite.releaseMemory()
        }
    }

    /// The writer's page cache in bytes (SQLite only), for tests of `releaseMemory`.
    var writerPageCacheBytes: Int {
        writer.withLock { writer in
            guard let connection = writer, case .sqlite(let sqlite) = connection.backend else { return 0 }
            return sqlite.pageCacheBytes
        }
    }

    // MARK: - Closing

    /// Waits for running reads and writes to finish, checkpoints the WAL into
    /// the main file, and closes every connection. Later calls do nothing;
    /// reads and writes after it throw. Must not be called from inside `read`
    /// or `write`.
    public func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        readers.close()
        writer.withLock { writer in
            guard let connection = writer else { return }
            connection.lend(to: ThreadIdentity.current)
            defer { connection.close() }
            guard dialect == .sqlite else {
                connection.reclaim()
                writer = nil
                return
            }
            // Both are optimizations whose failure loses nothing: the WAL is
            // already durable, and statistics are advisory.
            _ = try? connection.execute("PRAGMA optimize", cached: false)
            _ = try? connection.queryOne("PRAGMA wal_checkpoint(TRUNCATE)", cached: false)
            connection.reclaim()
            writer = nil
        }
    }
}
