import Glibc
import KithCrypto
import KithStorage

/// Claims on background work whose effects leave the database, so that with
/// several instances on one PostgreSQL database each piece is done by one of
/// them, and taken over when that one dies.
///
/// Work that happens entirely inside one write transaction needs none of
/// this: on PostgreSQL every write transaction holds the same advisory lock
/// (KithStorage), so a tick that re-reads what is due inside its write is
/// already alone, and an instance dying mid-transaction rolls it back for the
/// next tick elsewhere. A lease is for the rest — a photo's variants made by
/// a helper process and written to the shared media directory — where the
/// database only learns of the work once it is finished. The claim and the
/// finished work's record are each one write transaction; between them the
/// lease, not a lock, keeps other instances away, and its expiry bounds how
/// long a dead holder delays the work.
///
/// SQLite has one process, so one holder: the claim costs one small write
/// per piece of work, next to seconds of work, and only when there is some.
public struct Leases: Sendable {
    /// This instance, as lease rows name it: unique per start, so a restarted
    /// instance never mistakes its predecessor's lease for its own.
    public let holder: String
    private let clock: @Sendable () -> Int64

    public init(clock: @escaping @Sendable () -> Int64) {
        var host = [CChar](repeating: 0, count: 65)
        gethostname(&host, 64)
        let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        holder = "\(name.prefix(60)):\(getpid()):\(SecureRandom.token(bytes: 6))"
        self.clock = clock
    }

    /// Takes `name` for `seconds` when nobody else holds it (or their lease
    /// has run out), inside the caller's write transaction; renews it when
    /// this instance already holds it. True when this instance now holds it.
    public func claim(_ tx: Transaction, _ name: String, seconds: Int64) throws -> Bool {
        let now = clock()
        try tx.execute("""
            INSERT INTO task_leases (name, holder, expires_at) VALUES (\(name), \(holder), \(now + seconds))
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
            WHERE task_leases.expires_at <= \(now) OR task_leases.holder = excluded.holder
            """)
        return try tx.queryValue("SELECT holder FROM task_leases WHERE name = \(name)", as: String.self) == holder
    }

    /// Gives `name` up, in the transaction that records the finished work,
    /// so the work and the end of its claim commit together.
    public func release(_ tx: Transaction, _ name: String) throws {
        try tx.execute("DELETE FROM task_leases WHERE name = \(name) AND holder = \(holder)")
    }

    /// At start on SQLite, which only one process serves: every lease left
    /// was a predecessor's, dead now, so its work is free at once rather
    /// than when the lease runs out. On PostgreSQL another instance may be
    /// alive and holding, so leases there only ever run out.
    public static func forgetPredecessors(_ database: Database) throws {
        guard database.dialect == .sqlite else { return }
        try database.write { try $0.execute("DELETE FROM task_leases") }
    }

    /// SQL true when someone other than this instance holds `name` (an SQL
    /// expression, such as `'photo:' || f.sha256`) unexpired: for leaving
    /// claimed work out of a query that looks for work.
    public func heldElsewhere(_ name: SQL) -> SQL {
        """
        EXISTS (SELECT 1 FROM task_leases l WHERE l.name = \(name) AND l.expires_at > \(clock()) AND l.holder <> \(holder))
        """
    }
}
