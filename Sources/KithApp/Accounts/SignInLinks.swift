import KithCrypto
import KithStorage

/// One-time links that sign a browser in: "continue in another browser"
/// (made by a signed-in user for their phone or a chat app's in-app browser)
/// and operator resets (`kith user reset`). The link carries a random
/// 256-bit token; the database keeps only its SHA-256, so a copy of the
/// table opens nothing. Each works once, until it expires.
enum SignInLinks {
    enum Purpose: String, Sendable, DatabaseValueConvertible {
        case `continue`, reset

        /// Long enough to move to the other browser, or for an operator's
        /// message to be read; short enough that a link left in a chat
        /// history is soon worthless.
        var lifetime: Int64 {
            switch self {
            case .continue: 10 * 60
            case .reset: 24 * 3_600
            }
        }
    }

    /// Makes a link for `userID` and returns its absolute address.
    static func create(_ tx: Transaction, userID: Int64, purpose: Purpose, baseURL: String, now: Int64) throws -> String {
        try RecoveryStore.deleteExpiredLinks(tx, now: now)
        let token = SecureRandom.token()
        try RecoveryStore.createLink(
            tx, tokenHash: TokenHash.of(token), userID: userID, purpose: purpose, expiresAt: now + purpose.lifetime)
        return url(baseURL: baseURL, purpose: purpose, token: token)
    }

    static func url(baseURL: String, purpose: Purpose, token: String) -> String {
        let route = purpose == .continue ? RecoveryRoutes.continueLinkForm : RecoveryRoutes.resetForm
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return base + route.path(token)
    }
}

/// The operator's way back in for someone who has lost both password and
/// recovery codes: `kith user reset USERNAME` prints a link that signs one
/// browser in to that account and asks for a new password first.
public enum OperatorReset {
    public enum Failure: Error, Equatable {
        case unknownUsername
    }

    /// Issues a reset link for the password account `username` (any letter
    /// case), retiring any earlier unused one, and returns its address.
    /// Throws `Failure.unknownUsername` when no password account has that name.
    public static func issueLink(database: Database, username: String, baseURL: String, now: Int64) throws -> String {
        try database.write { tx in
            guard let userID = try RecoveryStore.passwordAccountID(tx, usernameKey: AccountRules.usernameKey(username)) else {
                throw Failure.unknownUsername
            }
            try RecoveryStore.deleteUnusedLinks(tx, userID: userID, purpose: .reset)
            return try SignInLinks.create(tx, userID: userID, purpose: .reset, baseURL: baseURL, now: now)
        }
    }
}
