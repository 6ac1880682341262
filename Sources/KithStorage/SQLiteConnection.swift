import CSQLite
import Synchronization

/// One SQLite connection with its own cache of prepared statements, behind
/// the `Connection` that `Database.read` lends.
///
/// `@unchecked Sendable` because SQLite is used in multi-thread mode (no mutex
/// inside the connection): the handle and the statement cache are touched only
/// by the thread the connection is lent to. `Database` hands each connection to
/// one thread at a time through a `Mutex` (the writer, and the reader pool's free
/// list), and `owner` makes every public entry point check that the caller is
/// that thread.
final class SQLiteConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    private var cache: [String: Statement] = [:]
    private let cacheCapacity: Int
    private var clock: UInt64 = 0
    /// The thread the connection is lent to, or 0. Only the borrowing thread
    /// writes its own identity here, so a relaxed load can only ever match for
    /// that thread.
    private let owner = Atomic<UInt>(0)
    /// Statements compiled so far, cached or not; lets tests prove cache reuse.
    private(set) var preparedStatementCount = 0
    /// The database's tally of statements run, shared by all its connections.
    var statementCounter: StatementCounter?

    private init(handle: OpaquePointer, cacheCapacity: Int) {
        self.handle = handle
        self.cacheCapacity = cacheCapacity
    }

    deinit {
        close()
    }

    /// Opens and configures a connection. The writer must be opened first: it
    /// creates the file and switches it to WAL, which readers cannot do.
    static func open(
        path: String,
        readOnly: Bool,
        busyTimeoutMilliseconds: Int32,
        statementCacheCapacity: Int
    ) throws(DatabaseError) -> SQLiteConnection {
        try SQLiteLibrary.ensureInitialized()
        var flags = SQLITE_OPEN_NOMUTEX
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            // Even a failed open usually allocates a handle, which carries the
            // message and must still be closed.
            let error = handle.map { DatabaseError(connection: $0, sql: nil) }
                ?? DatabaseError(resultCode: rc, message: String(cString: sqlite3_errstr(rc)))
            sqlite3_close_v2(handle)
            throw DatabaseError(
                resultCode: error.resultCode,
                extendedResultCode: error.extendedResultCode,
                message: "cannot open \(readOnly ? "a reader" : "the writer") on \(path): \(error.message)"
            )
        }
        let connection = SQLiteConnection(handle: handle, cacheCapacity: statementCacheCapacity)
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        try connection.configure()
        return connection
    }

    /// WAL lets readers work from a snapshot while the writer appends, so reads
    /// never wait for writes. With synchronous=NORMAL the WAL is fsynced at each
    /// checkpoint rather than at each commit: a committed transaction survives
    /// the process being killed (the data is in the OS's page cache and the WAL
    /// file), though a power loss may roll back the last few commits. The file
    /// can never be corrupted either way.
    private func configure() throws(DatabaseError) {
        let mode = try queryOne("PRAGMA journal_mode = WAL", cached: false).flatMap { try? $0.get(0, as: String.self) }
        guard let mode, mode.lowercased() == "wal" else {
            throw .misuse("the database could not be put in WAL mode (journal_mode is \(mode ?? "unknown")); WAL needs a local file system with shared memory")
        }
        try execute("PRAGMA synchronous = NORMAL", cached: false)
        try execute("PRAGMA foreign_keys = ON", cached: false)
        // The pragma is silently ignored by builds without foreign-key support,
        // and the schema relies on it.
        guard try queryOne("PRAGMA foreign_keys", cached: false)?[0] == .integer(1) else {
            throw .misuse("the linked SQLite does not enforce foreign keys")
        }
    }

    // MARK: - Lending

    func lend(to thread: UInt) {
        owner.store(thread, ordering: .relaxed)
    }

    func reclaim() {
        owner.store(0, ordering: .relaxed)
    }

    private func checkAccess() {
        precondition(
            owner.load(ordering: .relaxed) == ThreadIdentity.current,
            "Connection used outside the Database.read/write closure that lent it, or from another thread"
        )
    }

    private func openHandle() throws(DatabaseError) -> OpaquePointer {
        guard let handle else { throw DatabaseError.closed }
        return handle
    }

    // MARK: - Transactions

    var isInTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    func begin(immediate: Bool) throws(DatabaseError) {
        if immediate {
            try runTransactionStatement(&beginImmediate, "BEGIN IMMEDIATE")
        } else {
            try runTransactionStatement(&beginDeferred, "BEGIN DEFERRED")
        }
    }

    func commit() throws(DatabaseError) {
        try runTransactionStatement(&commitStatement, "COMMIT")
    }

    // BEGIN and COMMIT run around every read and write. Kept out of the
    // cache, they skip hashing their text twice per transaction and are
    // never evicted by a burst of other SQL.
    private var beginDeferred: Statement?
    private var beginImmediate: Statement?
    private var commitStatement: Statement?

    private func runTransactionStatement(_ slot: inout Statement?, _ sql: String) throws(DatabaseError) {
        let statement: Statement
        if let prepared = slot {
            statement = prepared
        } else {
            statement = try prepare(sql, persistent: true)
            slot = statement
        }
        statementCounter?.increment()
        defer { statement.reset() }
        try statement.run()
    }

    /// Rolls back if a transaction is still open. SQLite may already have rolled
    /// back on its own (after SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM...), in which
    /// case a ROLLBACK would only fail. A rollback failure is not reported: the
    /// caller is already propagating the error that caused it.
    func rollbackIfNeeded() {
        guard isInTransaction else { return }
        _ = try? execute("ROLLBACK", cached: true)
    }

    /// Hands back the page cache's unused pages. Migrations read and write
    /// every table, and the writer would otherwise keep those pages for the
    /// life of a server that then mostly sits idle.
    func releaseMemory() {
        checkAccess()
        guard let handle else { return }
        _ = sqlite3_db_release_memory(handle)
    }

    /// Bytes in the page cache now: what `releaseMemory` gives back.
    var pageCacheBytes: Int {
        guard let handle else { return 0 }
        var current: Int32 = 0
        var highwater: Int32 = 0
        _ = sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_USED, &current, &highwater, 0)
        return Int(current)
    }

    // MARK: - Closing

    /// Finalizes every statement and closes the handle. Idempotent.
    func close() {
        guard let handle else { return }
        for statement in cache.values {
            statement.finalize()
        }
        cache.removeAll()
        for statement in [beginDeferred, beginImmediate, commitStatement] {
            statement?.finalize()
        }
        beginDeferred = nil
        beginImmediate = nil
        commitStatement = nil
        // With all statements finalized this closes at once; the v2 variant
        // would otherwise defer the close instead of failing with SQLITE_BUSY.
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    // MARK: - Statements

    /// Returns a statement for `sql`, compiled or taken from the cache, with the
    /// arguments bound. Every successful call must be paired with `release`.
    private func acquire(_ sql: SQL, cached: Bool) throws(DatabaseError) -> Statement {
        let statement: Statement
        if cached && cacheCapacity > 0 {
            clock &+= 1
            if let hit = cache[sql.text], !hit.isInUse {
                statement = hit
            } else if cache[sql.text] != nil {
                statement = try prepare(sql.text, persistent: false)
            } else {
                statement = try prepare(sql.text, persistent: true)
                evictIfFull()
                cache[sql.text] = statement
            }
            statement.lastUsed = clock
        } else {
            statement = try prepare(sql.text, persistent: false)
        }
        statement.isInUse = true
        statementCounter?.increment()
        do {
            try statement.bind(sql.arguments)
        } catch {
            release(statement)
            throw error
        }
        return statement
    }

    private func release(_ statement: Statement) {
        statement.reset()
        statement.isInUse = false
        if !statement.isCached {
            statement.finalize()
        }
    }

    /// Dynamic SQL (IN lists of varying length, optional clauses) would otherwise
    /// grow the cache without bound; the least recently used idle statement goes.
    private func evictIfFull() {
        guard cache.count >= cacheCapacity else { return }
        let victim = cache.values.filter { !$0.isInUse }.min { $0.lastUsed < $1.lastUsed }
        guard let victim else { return }
        cache[victim.sql] = nil
        victim.finalize()
    }

    /// Compiles exactly one statement. Text after the first statement is an
    /// error rather than silently ignored, which is what sqlite3_prepare would do.
    private func prepare(_ sql: String, persistent: Bool) throws(DatabaseError) -> Statement {
        let handle = try openHandle()
        var statement: OpaquePointer?
        var hasTrailingStatement = false
        let length = sql.utf8.count
        let rc = sql.withCString { start in
            var tail: UnsafePointer<CChar>?
            // Passing the length including the terminator spares SQLite a copy.
            let rc = sqlite3_prepare_v3(
                handle, start, length < Int32.max ? Int32(length + 1) : -1,
                persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0,
                &statement, &tail
            )
            if rc == SQLITE_OK, let tail {
                hasTrailingStatement = Self.compilesToStatement(handle, tail)
            }
            return rc
        }
        guard rc == SQLITE_OK else {
            throw DatabaseError(connection: handle, sql: sql)
        }
        guard let statement else {
            throw .misuse("the SQL contains no statement", sql: sql)
        }
        guard !hasTrailingStatement else {
            sqlite3_finalize(statement)
            throw .misuse("the SQL contains more than one statement; use executeScript for scripts", sql: sql)
        }
        preparedStatementCount += 1
        return Statement(handle: statement, sql: sql, isCached: persistent)
    }

    /// Whether `text` holds anything but whitespace, comments and empty
    /// statements (`;`).
    private static func compilesToStatement(_ handle: OpaquePointer, _ text: UnsafePointer<CChar>) -> Bool {
        var cursor = text
        while true {
            while cursor.pointee != 0, isSpace(cursor.pointee) {
                cursor += 1
            }
            if cursor.pointee == 0 { return false }
            var statement: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(handle, cursor, -1, &statement, &tail)
            if rc != SQLITE_OK || statement != nil {
                sqlite3_finalize(statement)
                return true
            }
            guard let tail, tail > cursor else { return false }
            cursor = tail
        }
    }

    private static func isSpace(_ c: CChar) -> Bool {
        c == 0x20 || (c >= 0x09 && c <= 0x0D)
    }

    // MARK: - Running statements

    @discardableResult
    func execute(_ sql: SQL, cached: Bool) throws(DatabaseError) -> Int {
        let handle = try openHandle()
        let statement = try acquire(sql, cached: cached)
        defer { release(statement) }
        // sqlite3_changes keeps its old value across statements that change
        // nothing (DDL, SELECT); the total only moves when this one did.
        let before = sqlite3_total_changes64(handle)
        try statement.run()
        return sqlite3_total_changes64(handle) == before ? 0 : Int(sqlite3_changes64(handle))
    }

    func queryOne(_ sql: SQL, cached: Bool) throws(DatabaseError) -> Row? {
        let statement = try acquire(sql, cached: cached)
        defer { release(statement) }
        guard try statement.step() else { return nil }
        return statement.row(columns: statement.columns())
    }
}

extension SQLiteConnection: Queryable {
    @discardableResult
    public func execute(_ sql: SQL) throws(DatabaseError) -> Int {
        checkAccess()
        return try execute(sql, cached: true)
    }

    public func query(_ sql: SQL) throws(DatabaseError) -> [Row] {
        checkAccess()
        let statement = try acquire(sql, cached: true)
        defer { release(statement) }
        var rows: [Row] = []
        rows.reserveCapacity(statement.rowCountHint)
        var columns: Row.Columns?
        while try statement.step() {
            let layout = columns ?? statement.columns()
            columns = layout
            rows.append(statement.row(columns: layout))
        }
        statement.rememberRowCount(rows.count)
        return rows
    }

    public func queryOne(_ sql: SQL) throws(DatabaseError) -> Row? {
        checkAccess()
        return try queryOne(sql, cached: true)
    }

    public func query<T>(_ sql: SQL, decode: (RowView) throws -> T) throws -> [T] {
        checkAccess()
        let statement = try acquire(sql, cached: true)
        defer { release(statement) }
        var results: [T] = []
        results.reserveCapacity(statement.rowCountHint)
        while try statement.step() {
            results.append(try decode(RowView(statement)))
        }
        statement.rememberRowCount(results.count)
        return results
    }

    public func forEach(_ sql: SQL, _ body: (Row) throws -> Void) throws {
        checkAccess()
        let statement = try acquire(sql, cached: true)
        defer { release(statement) }
        var columns: Row.Columns?
        while try statement.step() {
            let layout = columns ?? statement.columns()
            columns = layout
            try body(statement.row(columns: layout))
        }
    }

    public func executeScript(_ text: String) throws(DatabaseError) {
        checkAccess()
        let handle = try openHandle()
        var failure: DatabaseError?
        let length = text.utf8.count
        text.withCString { start in
            let end = start + length
            var cursor = start
            while cursor < end, failure == nil {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                guard sqlite3_prepare_v2(handle, cursor, Int32(clamping: end - cursor), &statement, &tail) == SQLITE_OK else {
                    failure = DatabaseError(connection: handle, sql: Self.failingStatement(handle, from: cursor, to: end))
                    return
                }
                // An empty statement (a lone `;`, a comment): skip it, or stop at
                // the end of the text.
                guard let statement else {
                    guard let tail, tail > cursor else { return }
                    cursor = tail
                    continue
                }
                preparedStatementCount += 1
                var rc = sqlite3_step(statement)
                while rc == SQLITE_ROW {
                    rc = sqlite3_step(statement)
                }
                if rc != SQLITE_DONE {
                    failure = DatabaseError(connection: handle, sql: String(cString: sqlite3_sql(statement)))
                }
                sqlite3_finalize(statement)
                cursor = tail ?? end
            }
        }
        if let failure { throw failure }
    }

    /// For a script that fails to compile, the text from the start of the failing
    /// statement to the end of the statement holding the error position, so the
    /// report shows the offending SQL rather than the rest of the file.
    private static func failingStatement(_ handle: OpaquePointer, from start: UnsafePointer<CChar>, to end: UnsafePointer<CChar>) -> String {
        let offset = Int(sqlite3_error_offset(handle))
        var stop = start + max(0, min(offset, end - start))
        while stop < end, stop.pointee != 0x3B /* ; */ {
            stop += 1
        }
        let text = String(decoding: UnsafeRawBufferPointer(start: start, count: stop - start), as: UTF8.self)
        let trimmed = Substring(text).trimmingSpaces
        return trimmed.count > 1_000 ? trimmed.prefix(1_000) + "…" : String(trimmed)
    }

    public var lastInsertRowID: Int64 {
        checkAccess()
        guard let handle else { return 0 }
        return sqlite3_last_insert_rowid(handle)
    }

    public var changes: Int {
        checkAccess()
        guard let handle else { return 0 }
        return Int(sqlite3_changes64(handle))
    }
}
