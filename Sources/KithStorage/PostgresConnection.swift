import CLazyLibraries
import CPostgres
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One PostgreSQL session with its own cache of prepared statements, behind
/// the `Connection` that `Database.read` lends.
///
/// `@unchecked Sendable` for the same reason as `SQLiteConnection`: a libpq
/// connection must not be used by two threads at once, and `Database` lends
/// each to one thread at a time.
final class PostgresConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    private let conninfo: String
    private struct Prepared {
        let name: String
        var lastUsed: UInt64
    }

    private var cache: [String: Prepared] = [:]
    private let cacheCapacity: Int
    private var clock: UInt64 = 0
    private var nextName = 0
    /// Statements dropped from the cache, deallocated on the server before the
    /// next transaction: inside an aborted one DEALLOCATE would fail too.
    private var evicted: [String] = []
    private(set) var preparedStatementCount = 0
    var statementCounter: StatementCounter?
    private(set) var changes = 0
    private var lastAffected = 0
    /// Inside a write transaction each statement runs under a savepoint, so
    /// a failing one (a unique violation the caller turns into a form error)
    /// undoes only itself, as in SQLite, instead of poisoning the transaction.
    private var guardsStatements = false

    /// The key of the advisory lock every write transaction takes; any
    /// constant works, as long as every instance uses the same one.
    static let writeLockKey: Int64 = 0x4B697468 // "Kith"

    private init(handle: OpaquePointer, conninfo: String, cacheCapacity: Int) {
        self.handle = handle
        self.conninfo = conninfo
        self.cacheCapacity = cacheCapacity
    }

    deinit {
        close()
    }

    static func open(url: String, statementCacheCapacity: Int) throws(DatabaseError) -> PostgresConnection {
        let handle = try connect(url)
        return PostgresConnection(handle: handle, conninfo: url, cacheCapacity: statementCacheCapacity)
    }

    private static func connect(_ conninfo: String) throws(DatabaseError) -> OpaquePointer {
        // libpq is loaded here, on the first connection, not at start.
        if let why = kith_lazy_libpq_error() {
            throw DatabaseError(sqlState: "08001", primary: "libpq is not installed, and PostgreSQL needs it (Debian: apt install libpq5): \(String(cString: why))", table: nil, column: nil, constraint: nil, detail: nil, sql: nil)
        }
        guard let handle = PQconnectdb(conninfo) else {
            throw DatabaseError(sqlState: "08001", primary: "out of memory opening a PostgreSQL connection", table: nil, column: nil, constraint: nil, detail: nil, sql: nil)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Substring(String(cString: PQerrorMessage(handle))).trimmingSpaces
            PQfinish(handle)
            throw DatabaseError(sqlState: "08001", primary: "cannot connect to PostgreSQL: \(message)", table: nil, column: nil, constraint: nil, detail: nil, sql: nil)
        }
        // Notices (CREATE TABLE IF NOT EXISTS on an existing table) would go
        // to standard error; they are not failures.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        if PQsetClientEncoding(handle, "UTF8") != 0 {
            PQfinish(handle)
            throw DatabaseError(sqlState: "08001", primary: "the PostgreSQL server refused UTF-8", table: nil, column: nil, constraint: nil, detail: nil, sql: nil)
        }
        return handle
    }

    private func openHandle() throws(DatabaseError) -> OpaquePointer {
        guard let handle else { throw DatabaseError.closed }
        return handle
    }

    /// Opens the session again after the server dropped it (a restart, an
    /// administrator's pg_terminate_backend). Its prepared statements died
    /// with it.
    private func reconnect() throws(DatabaseError) {
        if let handle { PQfinish(handle) }
        handle = nil
        cache.removeAll()
        evicted.removeAll()
        guardsStatements = false
        handle = try Self.connect(conninfo)
    }

    private var isBroken: Bool {
        guard let handle else { return false }
        return PQstatus(handle) != CONNECTION_OK
    }

    func close() {
        guard let handle else { return }
        PQfinish(handle)
        self.handle = nil
        cache.removeAll()
    }

    // MARK: - Transactions

    var isInTransaction: Bool {
        guard let handle else { return false }
        return PQtransactionStatus(handle) == PQTRANS_INTRANS
    }

    /// A read is one REPEATABLE READ READ ONLY transaction, so every statement
    /// of a page sees one snapshot, as a SQLite WAL reader does.
    ///
    /// A write is a READ COMMITTED transaction that first takes one
    /// transaction-scoped advisory lock, the same for every write of every
    /// instance. SQLite runs one write at a time, and the stores rely on it:
    /// they read a balance or a count and then write on its strength. Taking
    /// the lock before the first statement gives exactly that here: the next
    /// writer waits for the commit, and each statement then sees every commit
    /// before it, so no check-then-write can interleave with another, across
    /// processes too. SERIALIZABLE would detect such races only after the
    /// fact and make every write retryable; the lock prevents them, costs
    /// one round trip, and leaves readers untouched, since they never take it.
    func begin(write: Bool) throws(DatabaseError) {
        let text = write ? "BEGIN ISOLATION LEVEL READ COMMITTED" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        if isBroken { try reconnect() }
        deallocateEvicted()
        do {
            try control(text)
        } catch where error.isConnectionFailure {
            // Nothing ran yet, so one retry on a fresh session is safe.
            try reconnect()
            try control(text)
        }
        guard write else { return }
        do {
            try control("SELECT pg_advisory_xact_lock(\(Self.writeLockKey))", counted: false)
        } catch {
            rollbackIfNeeded()
            throw error
        }
        guardsStatements = true
    }

    func commit() throws(DatabaseError) {
        guardsStatements = false
        try control("COMMIT")
    }

    func rollbackIfNeeded() {
        guardsStatements = false
        guard let handle else { return }
        let status = PQtransactionStatus(handle)
        guard status == PQTRANS_INTRANS || status == PQTRANS_INERROR else { return }
        _ = try? control("ROLLBACK", counted: false)
    }

    private func deallocateEvicted() {
        guard !evicted.isEmpty, let handle, PQtransactionStatus(handle) == PQTRANS_IDLE else { return }
        for name in evicted {
            _ = try? control("DEALLOCATE \(name)", counted: false)
        }
        evicted.removeAll()
    }

    /// Runs trusted text with the simple protocol: transaction control, scripts.
    private func control(_ text: String, counted: Bool = true) throws(DatabaseError) {
        let handle = try openHandle()
        if counted { statementCounter?.increment() }
        let result = PQexec(handle, text)
        defer { PQclear(result) }
        try check(result, sql: text)
    }

    private func check(_ result: OpaquePointer?, sql: String) throws(DatabaseError) {
        if let result {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return }
        }
        throw error(result, sql: sql)
    }

    private func error(_ result: OpaquePointer?, sql: String) -> DatabaseError {
        let field = { (code: Character) -> String? in
            guard let result, let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        let fallback = handle.map { Substring(String(cString: PQerrorMessage($0))).trimmingSpaces.description } ?? "the connection is closed"
        return DatabaseError(
            sqlState: field("C"), primary: field("M") ?? fallback, table: field("t"), column: field("c"),
            constraint: field("n"), detail: field("D"), sql: sql)
    }

    // MARK: - Statements

    /// Runs one statement, under a savepoint inside a write transaction.
    private func guarded<T>(_ body: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        guard guardsStatements else { return try body() }
        try control("SAVEPOINT kith_statement", counted: false)
        do {
            let value = try body()
            try control("RELEASE SAVEPOINT kith_statement", counted: false)
            return value
        } catch {
            if !isBroken {
                _ = try? control("ROLLBACK TO SAVEPOINT kith_statement", counted: false)
                _ = try? control("RELEASE SAVEPOINT kith_statement", counted: false)
            }
            throw error
        }
    }

    @discardableResult
    func execute(_ sql: SQL, cached: Bool) throws(DatabaseError) -> Int {
        try guarded { () throws(DatabaseError) in
            let result = try run(sql, cached: cached)
            defer { PQclear(result) }
            return lastAffected
        }
    }

    func query(_ sql: SQL, cached: Bool) throws(DatabaseError) -> [Row] {
        try guarded { () throws(DatabaseError) in
            let result = try run(sql, cached: cached)
            defer { PQclear(result) }
            return Self.rows(of: result)
        }
    }

    func executeScript(_ text: String) throws(DatabaseError) {
        try guarded { () throws(DatabaseError) in
            let handle = try openHandle()
            preparedStatementCount += 1
            // Several statements in one simple query run in order and stop at
            // the first failure, inside the caller's transaction.
            let result = PQexec(handle, text)
            defer { PQclear(result) }
            try check(result, sql: text.count > 1_000 ? text.prefix(1_000) + "…" : text)
        }
    }

    var lastInsertRowID: Int64 {
        // lastval() fails until the session draws from a sequence; the
        // savepoint keeps that failure from spoiling a write.
        let value = try? query("SELECT lastval()", cached: true).first?.get(0, as: Int64.self)
        return value ?? 0
    }

    /// Prepares (or reuses) and executes; the caller clears the result.
    private func run(_ sql: SQL, cached: Bool) throws(DatabaseError) -> OpaquePointer {
        let handle = try openHandle()
        let types = sql.arguments.map(Self.typeOID)
        statementCounter?.increment()
        let result: OpaquePointer?
        if cached && cacheCapacity > 0 {
            let name = try prepared(sql, types: types, handle: handle)
            result = try Self.withParameters(sql.arguments, sql: sql.text) { values, lengths, formats in
                PQexecPrepared(handle, name, Int32(sql.arguments.count), values, lengths, formats, 0)
            }
        } else {
            preparedStatementCount += 1
            let text = sql.text(for: .postgres)
            result = try Self.withParameters(sql.arguments, sql: sql.text) { values, lengths, formats in
                PQexecParams(handle, text, Int32(sql.arguments.count), types, values, lengths, formats, 0)
            }
        }
        do {
            try check(result, sql: sql.text)
        } catch {
            PQclear(result)
            throw error
        }
        // SQLite counts only rows inserted, updated or deleted, and keeps its
        // count across any other statement.
        let command = String(cString: PQcmdStatus(result))
        if command.hasPrefix("INSERT") || command.hasPrefix("UPDATE") || command.hasPrefix("DELETE") || command.hasPrefix("MERGE") {
            changes = Int(String(cString: PQcmdTuples(result))) ?? 0
            lastAffected = changes
        } else {
            lastAffected = 0
        }
        return result!
    }

    /// The name of the server-side statement for this text and these
    /// argument types, preparing it on a miss. The types are part of the key:
    /// a statement is typed once, at PREPARE.
    private func prepared(_ sql: SQL, types: [Oid], handle: OpaquePointer) throws(DatabaseError) -> String {
        let key = types.isEmpty ? sql.text : sql.text + "\u{0}" + types.map { String($0) }.joined(separator: ",")
        clock &+= 1
        if let hit = cache[key] {
            cache[key]?.lastUsed = clock
            return hit.name
        }
        nextName += 1
        let name = "kith_\(nextName)"
        let result = PQprepare(handle, name, sql.text(for: .postgres), Int32(types.count), types)
        defer { PQclear(result) }
        try check(result, sql: sql.text)
        preparedStatementCount += 1
        evictIfFull()
        cache[key] = Prepared(name: name, lastUsed: clock)
        return name
    }

    /// Dynamic SQL would otherwise grow the cache (and the server's memory)
    /// without bound; the least recently used statement goes.
    private func evictIfFull() {
        guard cache.count >= cacheCapacity, let victim = cache.min(by: { $0.value.lastUsed < $1.value.lastUsed }) else { return }
        cache[victim.key] = nil
        evicted.append(victim.value.name)
    }

    /// Integers and reals are typed so `SELECT \(1)` comes back a number;
    /// text and NULL are left for the server to infer from where they sit.
    private static func typeOID(_ value: DatabaseValue) -> Oid {
        switch value {
        case .integer: 20   // int8
        case .real: 701     // float8
        case .blob: 17      // bytea
        case .text, .null: 0
        }
    }

    /// Lays the arguments out as libpq wants them: text for all but blobs,
    /// which go in binary so no escaping is needed.
    private static func withParameters<T>(
        _ arguments: [DatabaseValue], sql: String,
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T
    ) throws(DatabaseError) -> T {
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { buffers.forEach { $0?.deallocate() } }
        for value in arguments {
            var bytes: [UInt8]
            var format: Int32 = 0
            switch value {
            case .null:
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
                continue
            case .integer(let integer): bytes = Array(String(integer).utf8)
            case .real(let real): bytes = Array("\(real)".utf8)
            case .text(let text):
                bytes = Array(text.utf8)
                guard !bytes.contains(0) else {
                    throw DatabaseError(resultCode: SQLITE_MISMATCH_CODE, message: "PostgreSQL cannot store text containing a NUL character", sql: sql)
                }
            case .blob(let blob):
                bytes = blob
                format = 1
            }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress ?? UnsafeRawPointer(buffer), byteCount: bytes.count)
            }
            buffer[bytes.count] = 0
            buffers.append(buffer)
            lengths.append(Int32(bytes.count))
            formats.append(format)
        }
        let values = buffers.map { UnsafePointer($0) }
        return values.withUnsafeBufferPointer { values in
            lengths.withUnsafeBufferPointer { lengths in
                formats.withUnsafeBufferPointer { formats in
                    body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
                }
            }
        }
    }

    // MARK: - Results

    /// Decodes text-format results by column type, into SQLite's storage
    /// classes: the integer types and booleans to integers, floats to reals,
    /// numeric (what sum() of a bigint gives) to an integer when it has no
    /// fraction, bytea to blobs, everything else to text.
    private static func rows(of result: OpaquePointer) -> [Row] {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        guard rowCount > 0 else { return [] }
        var names: [String] = []
        var types: [Oid] = []
        for column in 0..<columnCount {
            names.append(String(cString: PQfname(result, Int32(column))))
            types.append(PQftype(result, Int32(column)))
        }
        let columns = Row.Columns(names: names)
        var rows: [Row] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [DatabaseValue] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) != 0 {
                    values.append(.null)
                    continue
                }
                let pointer = PQgetvalue(result, Int32(row), Int32(column))!
                let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: length)
                values.append(decode(bytes, type: types[column]))
            }
            rows.append(Row(columns: columns, values: values))
        }
        return rows
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, type: Oid) -> DatabaseValue {
        let text = String(decoding: bytes, as: UTF8.self)
        switch type {
        case 20, 21, 23, 26:
            return Int64(text).map(DatabaseValue.integer) ?? .text(text)
        case 16:
            return .integer(text == "t" ? 1 : 0)
        case 700, 701:
            return Double(text).map(DatabaseValue.real) ?? .text(text)
        case 1700:
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map(DatabaseValue.real) ?? .text(text)
        case 17:
            return .blob(hexDecoded(bytes))
        default:
            return .text(text)
        }
    }

    /// bytea's text form: `\x` then two hex digits a byte.
    private static func hexDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x") else { return Array(bytes) }
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: c - UInt8(ascii: "A") + 10
            }
        }
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count - 2) / 2)
        var index = 2
        while index + 1 < bytes.count {
            output.append(nibble(bytes[index]) << 4 | nibble(bytes[index + 1]))
            index += 2
        }
        return output
    }
}

/// SQLITE_MISMATCH, without importing SQLite here.
private let SQLITE_MISMATCH_CODE: Int32 = 20
