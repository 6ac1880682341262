import KithStorage

/// A budget: at most `limit` events under `scope` within `window` seconds.
/// Every throttle of accounts keeps its events in `sign_in_failures` (a
/// scope and an instant), whatever it counts: failed sign-ins per username,
/// per address or per device, sign-ups and guests per address.
struct Throttle: Sendable, Equatable {
    let scope: String
    let limit: Int
    let window: Int64

    /// The longest window of any budget below. Rows older than this are
    /// forgotten whenever one is written, so the table stays small, and no
    /// budget loses events it still counts.
    static let longestWindow: Int64 = 60 * 60

    // MARK: Proving who you are (passwords, recovery codes)

    /// Failed attempts against one username, from anywhere without a device cookie for it.
    static func username(_ username: String) -> Throttle {
        Throttle(scope: AccountDeletion.failureScope(username: username), limit: AccountRoutes.failuresPerUsername, window: AccountRoutes.failureWindow)
    }

    /// Failed attempts from one address, for any username, without a device cookie.
    static func address(_ address: String) -> Throttle {
        Throttle(scope: "address:" + address, limit: AccountRoutes.failuresPerAddress, window: AccountRoutes.failureWindow)
    }

    /// Failed attempts made with one device cookie: the only budget that
    /// judges a browser the account has signed in on before.
    static func device(_ nonce: String) -> Throttle {
        Throttle(scope: "device:" + nonce, limit: AccountRoutes.failuresPerDevice, window: AccountRoutes.failureWindow)
    }

    // MARK: Making accounts

    /// Accounts made from one address in an hour.
    static func accountsCreated(_ address: String, limit: Int) -> Throttle {
        Throttle(scope: "signup:" + address, limit: limit, window: 60 * 60)
    }

    /// Sign-ups and claims from one address that reached Argon2 in an hour:
    /// twice the accounts, room for a race lost or a busy server.
    static func signUpHashes(_ address: String, accountsLimit: Int) -> Throttle {
        Throttle(scope: "signup-hash:" + address, limit: 2 * accountsLimit, window: 60 * 60)
    }

    /// Guests made from one address in an hour.
    static func guests(_ address: String, limit: Int) -> Throttle {
        Throttle(scope: "guest:" + address, limit: limit, window: 60 * 60)
    }
}

enum Throttles {
    /// How long until every budget has room again, in words; nil when all do.
    static func wait(_ db: some Queryable, _ budgets: [Throttle], now: Int64) throws -> String? {
        var longest: Int64 = 0
        for budget in budgets {
            let (count, oldest) = try AccountStore.failures(db, scope: budget.scope, since: now - budget.window)
            if count >= budget.limit, let oldest { longest = max(longest, oldest + budget.window - now) }
        }
        return longest > 0 ? waitInWords(seconds: longest) : nil
    }

    /// Counts one event against each budget.
    static func record(_ tx: Transaction, _ budgets: [Throttle], now: Int64) throws {
        try AccountStore.recordFailure(tx, scopes: budgets.map(\.scope), now: now, forgetBefore: now - Throttle.longestWindow)
    }

    /// Checks `budgets` and, when all have room, counts one event against
    /// `counting` — in one write transaction, so a burst of parallel requests
    /// cannot all read "room for one more" before any of them is counted.
    static func admit(_ database: Database, _ budgets: [Throttle], counting: [Throttle], now: Int64) throws -> String? {
        try database.write { tx in
            if let wait = try wait(tx, budgets, now: now) { return wait }
            try record(tx, counting, now: now)
            return nil
        }
    }

    /// "a minute", "15 minutes": how long a throttled person waits, rounded up.
    static func waitInWords(seconds: Int64) -> String {
        let minutes = (seconds + 59) / 60
        return minutes <= 1 ? "a minute" : "\(minutes) minutes"
    }
}
