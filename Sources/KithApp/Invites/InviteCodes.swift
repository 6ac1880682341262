import KithCrypto
import KithHTTP
import KithStorage
import KithSync
import KithTemplates

/// What a code opens, as its preview shows it. Nothing private: chat apps
/// fetch invite links to draw their previews, and anyone holding a link
/// may read this.
public struct InvitePreview: Sendable, Equatable {
    /// "Summer Road Trip".
    public var name: String
    /// "plate game", "birthday".
    public var kindLabel: String
    /// "contributor", "player": what joining makes you.
    public var role: String
    /// What the time zone means here, under the guest form's zone list.
    public var timeZoneHint: String?
    public init(name: String, kindLabel: String, role: String, timeZoneHint: String? = nil) {
        self.name = name
        self.kindLabel = kindLabel
        self.role = role
        self.timeZoneHint = timeZoneHint
    }
}

/// What joining did.
public enum JoinOutcome: Sendable, Equatable {
    /// Now a member; go here.
    case joined(redirect: String)
    /// Already in (in this role or another): nothing changed; go here, and say why.
    case alreadyMember(redirect: String, message: String)
    /// Joining is not possible (the celebrant link was used): nothing changed.
    case refused(message: String)
}

/// A kind of invite a feature registers: how to describe its target and
/// what joining does. Features never re-implement the join flow.
public struct InviteKind: Sendable {
    public let name: String
    public let describe: @Sendable (_ targetID: Int64, _ db: Connection) throws -> InvitePreview?
    public let join: @Sendable (_ tx: Transaction, _ targetID: Int64, _ userID: Int64, _ app: KithApp) throws -> JoinOutcome
    /// What joining would do before anyone presses the button, when the
    /// answer is already known (the viewer is in, or the link is used up;
    /// `userID` is nil when signed out): the preview then says so instead
    /// of offering a join. Nil: the preview offers the join.
    public let standing: (@Sendable (_ targetID: Int64, _ userID: Int64?, _ db: Connection) throws -> JoinOutcome?)?

    public init(
        name: String,
        describe: @escaping @Sendable (_ targetID: Int64, _ db: Connection) throws -> InvitePreview?,
        join: @escaping @Sendable (_ tx: Transaction, _ targetID: Int64, _ userID: Int64, _ app: KithApp) throws -> JoinOutcome,
        standing: (@Sendable (_ targetID: Int64, _ userID: Int64?, _ db: Connection) throws -> JoinOutcome?)? = nil
    ) {
        self.name = name
        self.describe = describe
        self.join = join
        self.standing = standing
    }
}

/// The one code space: six characters from an alphabet without look-alikes
/// (no 0/O, 1/I/L), read aloud easily, drawn from the CSPRNG, unique across
/// every occasion and game, mapping to a registered kind and a target.
public final class InviteCodes: Sendable {
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    public static let length = 6

    private let kinds = Lock<[String: InviteKind]>([:])

    public init() {}

    public func register(_ kind: InviteKind) {
        kinds.withLock {
            precondition($0[kind.name] == nil, "invite kind registered twice: \(kind.name)")
            $0[kind.name] = kind
        }
    }

    func kind(_ name: String) -> InviteKind? { kinds.withLock { $0[name] } }

    /// A new code for a target, inside the caller's transaction.
    public func issue(_ tx: Transaction, kind: String, targetID: Int64, createdBy: Int64?, now: Int64) throws -> String {
        precondition(self.kind(kind) != nil, "unknown invite kind \(kind)")
        // 31^6 codes: a collision is rare, and the primary key catches it.
        for _ in 0..<8 {
            let code = String((0..<Self.length).map { _ in Self.alphabet[SecureRandom.uniform(Self.alphabet.count)] })
            if try InviteStore.insert(tx, code: code, kind: kind, targetID: targetID, createdBy: createdBy, now: now) { return code }
        }
        throw HTTPError.internal(InviteStore.Failure.noFreeCode)
    }

    /// Retires the target's live code of this kind and issues a new one: the
    /// old link dies for good.
    public func rotate(_ tx: Transaction, kind: String, targetID: Int64, by userID: Int64?, now: Int64) throws -> String {
        try InviteStore.retire(tx, kind: kind, targetID: targetID, now: now)
        return try issue(tx, kind: kind, targetID: targetID, createdBy: userID, now: now)
    }

    /// Retires a target's code for good, when what it opened is gone.
    public func retire(_ tx: Transaction, kind: String, targetID: Int64, now: Int64) throws {
        try InviteStore.retire(tx, kind: kind, targetID: targetID, now: now)
    }

    /// The live code of a target, for the host's page.
    public func code(_ db: some Queryable, kind: String, targetID: Int64) throws -> String? {
        try InviteStore.liveCode(db, kind: kind, targetID: targetID)
    }

    /// Anything typed or pasted — a code, a whole link, with any case, spaces
    /// or dashes — as a code, or nil when it cannot be one.
    public static func normalize(_ input: String) -> String? {
        var text = Substring(input)
        if let slash = text.lastIndex(of: "/") { text = text[text.index(after: slash)...] }
        if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<query] }
        let code = String(text.uppercased().filter { $0 != " " && $0 != "-" && $0 != "\t" })
        guard code.count == length, code.allSatisfy({ alphabet.contains($0) }) else { return nil }
        return code
    }
}

/// The SQL of invite codes and the lookup throttle.
enum InviteStore {
    enum Failure: Error { case noFreeCode }

    struct Resolved: Sendable {
        let kind: String
        let targetID: Int64
        let inviter: String?
    }

    /// False when the code is taken (by any code ever issued).
    static func insert(_ tx: Transaction, code: String, kind: String, targetID: Int64, createdBy: Int64?, now: Int64) throws -> Bool {
        do {
            try tx.execute("""
                INSERT INTO invite_codes (code, kind, target_id, created_by, created_at)
                VALUES (\(code), \(kind), \(targetID), \(createdBy), \(now))
                """)
            return true
        } catch {
            if error.isUniqueViolation { return false }
            throw error
        }
    }

    static func retire(_ tx: Transaction, kind: String, targetID: Int64, now: Int64) throws {
        try tx.execute("""
            UPDATE invite_codes SET retired_at = \(now)
            WHERE kind = \(kind) AND target_id = \(targetID) AND retired_at IS NULL
            """)
    }

    static func liveCode(_ db: some Queryable, kind: String, targetID: Int64) throws -> String? {
        try db.queryValue("""
            SELECT code FROM invite_codes WHERE kind = \(kind) AND target_id = \(targetID) AND retired_at IS NULL
            ORDER BY created_at DESC LIMIT 1
            """, as: String.self)
    }

    /// A live code's target and who shared it; nil for unknown and retired codes alike.
    static func resolve(_ db: some Queryable, code: String) throws -> Resolved? {
        guard let row = try db.queryOne("""
            SELECT invite_codes.kind, invite_codes.target_id, users.display_name AS inviter
            FROM invite_codes LEFT JOIN users ON users.id = invite_codes.created_by
            WHERE invite_codes.code = \(code) AND invite_codes.retired_at IS NULL
            """)
        else { return nil }
        return Resolved(kind: try row.get("kind"), targetID: try row.get("target_id"), inviter: try row.get("inviter"))
    }

    static func failures(_ db: some Queryable, address: String, since: Int64) throws -> (count: Int, oldest: Int64?) {
        let row = try db.queryOne("""
            SELECT count(*) AS n, min(at) AS oldest FROM invite_lookup_failures WHERE address = \(address) AND at >= \(since)
            """)
        return (Int(try row?.get("n", as: Int64.self) ?? 0), try row?.get("oldest", as: Int64?.self) ?? nil)
    }

    static func recordFailure(_ tx: Transaction, address: String, now: Int64, forgetBefore: Int64) throws {
        try tx.execute("INSERT INTO invite_lookup_failures (address, at) VALUES (\(address), \(now))")
        try tx.execute("DELETE FROM invite_lookup_failures WHERE at < \(forgetBefore)")
    }
}

extension InviteCodes {
    /// What rotating does, for the confirmation every feature's "new code"
    /// button asks: the old code dies for good (see `rotate`).
    static func rotateConfirmation(_ what: String, code: String?) -> Confirmation {
        Confirmation(
            "Make \(what)?",
            "\(code.map { "The code \($0)" } ?? "The old code") and its link stop working for good; whoever hasn't joined yet needs the new one.",
            button: "Make \(what)")
    }
}
