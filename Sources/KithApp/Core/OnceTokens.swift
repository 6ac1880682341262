import KithCrypto
import KithHTTP
import KithStorage
import KithTemplates

/// Create forms that create once. Two quick posts of the same form (a double
/// tap, a retried request, two arriving at once) must not make two tallies.
///
/// The form carries a token made when it is shown. Showing a page never
/// writes (`ReadOnlyGetTests`), so the token is not stored then: it is the
/// person's id, the time and a random nonce, signed with the instance secret.
/// The first post that brings it runs the create and records the nonce with
/// where it led, in the same write transaction; a later post finds the row and
/// gets the same answer. Kith has one writer, so two posts at once are decided
/// one after the other and the second always sees the first's row.
///
/// A feature uses it the same way everywhere:
///
///     form.onceToken = context.onceToken()             // when rendering the form
///     let once = try context.onceForm()                // in the create handler
///     let to = try app.database.write { tx in try once.run(tx) { …create…; return show.path(id) } }
///     return .redirect(to: to)
///
/// A form without a token (or with someone else's, or an expired one) is a 400
/// asking to try again. Pages shown before tokens existed get that answer once:
/// accepting a missing token would let exactly the double submit through that
/// this exists to stop, and a reload gives the form its token.
enum OnceTokens {
    static let fieldName = "_once"
    /// A form left open longer than this asks to be reloaded; rows are swept after it.
    static let lifetime: Int64 = 86_400
    static let sweepInterval: Double = 3_600

    static let outOfDate = "This form is out of date; please try again. Nothing was created."

    static func issue(userID: Int64, secret: [UInt8], now: Int64) -> String {
        let nonce = SecureRandom.token(bytes: 16)
        return "\(now).\(nonce).\(signature(userID: userID, issuedAt: now, nonce: nonce, secret: secret))"
    }

    /// The token's nonce and time when it is this person's, unexpired and untouched.
    static func verify(_ token: String, userID: Int64, secret: [UInt8], now: Int64) -> OnceForm? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count <= 12, let issuedAt = Int64(parts[0]), parts[1].utf8.count <= 64 else { return nil }
        let nonce = String(parts[1])
        let expected = signature(userID: userID, issuedAt: issuedAt, nonce: nonce, secret: secret)
        guard constantTimeEquals(Array(parts[2].utf8), Array(expected.utf8)) else { return nil }
        // A little tolerance for a clock stepped back; never a token from far ahead.
        guard issuedAt <= now + 300, now - issuedAt < lifetime else { return nil }
        return OnceForm(userID: userID, nonce: nonce, issuedAt: issuedAt)
    }

    private static func signature(userID: Int64, issuedAt: Int64, nonce: String, secret: [UInt8]) -> String {
        Base64URL.encode(HMAC.sha256(key: secret, message: Array("once:\(userID):\(issuedAt):\(nonce)".utf8)))
    }

    /// Removes records whose tokens have expired: such a token is refused
    /// before its row is looked at, so the row can no longer matter.
    static func sweep(_ database: Database, now: Int64) throws {
        try database.write { tx in _ = try tx.execute("DELETE FROM once_tokens WHERE issued_at < \(now - lifetime - 300)") }
    }

    static func sweeper(_ app: KithApp) -> PeriodicTask {
        PeriodicTask("once-token-sweep", every: sweepInterval) { [weak app] in
            guard let app else { return }
            do {
                try sweep(app.database, now: app.now)
            } catch {
                app.logger.log(["level": "error", "msg": "once-token sweep failed", "cause": String(describing: error)])
                app.logger.flush()
            }
        }
    }
}
/// A create form's verified token, ready to decide inside the write.
struct OnceForm: Sendable {
    let userID: Int64
    let nonce: String
    let issuedAt: Int64

    /// The earlier answer for this form, or `create`'s (run now, and
    /// recorded in `tx`, so it counts only if the create commits).
    func run(_ tx: Transaction, _ create: () throws -> String) throws -> String {
        if let earlier = try tx.queryValue(
            "SELECT result FROM once_tokens WHERE user_id = \(userID) AND nonce = \(nonce)", as: String.self)
        {
            return earlier
        }
        let result = try create()
        _ = try tx.execute("""
            INSERT INTO once_tokens (user_id, nonce, issued_at, result) VALUES (\(userID), \(nonce), \(issuedAt), \(result))
            """)
        return result
    }
}

extension RequestContext {
    /// A fresh token for a create form shown to the signed-in person (nil signed out).
    func onceToken() -> String? {
        user.map { OnceTokens.issue(userID: $0.id, secret: app.sessions.secret, now: app.now) }
    }

    /// The posted form's token, or a 400 when it is missing, expired or not this person's.
    func onceForm() throws -> OnceForm {
        let user = try requireUser()
        guard let token = request.form[OnceTokens.fieldName], !token.isEmpty else {
            throw HTTPError.badRequest(OnceTokens.outOfDate, cause: OnceTokenError.missing)
        }
        guard let once = OnceTokens.verify(token, userID: user.id, secret: app.sessions.secret, now: app.now) else {
            throw HTTPError.badRequest(OnceTokens.outOfDate, cause: OnceTokenError.invalid)
        }
        return once
    }
}

enum OnceTokenError: Error, CustomStringConvertible {
    case missing, invalid
    var description: String { self == .missing ? "create form posted without a once token" : "once token expired, forged or another person's" }
}
