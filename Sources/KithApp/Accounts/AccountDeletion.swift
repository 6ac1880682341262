import KithStorage
import Synchronization

/// What deleting a user means, feature by feature. Accounts cannot know that
/// an occasion hands its host role on, that a tally's shared copies go, or
/// that a timeline entry keeps its place but loses its content; each feature
/// registers a hook saying so, once, while the app is built. Every hook runs
/// in the one write transaction that deletes the user, so a hook that throws
/// leaves the account and everything of it exactly as it was. Each returns
/// the invalidations its changes mean for open pages (a member list, a
/// board), published together once the deletion commits.
public final class AccountPurge: Sendable {
    /// Removes, empties or hands over what the user (the id) had in one
    /// feature, inside the deletion's transaction; returns what others'
    /// open pages must refetch.
    public typealias Hook = @Sendable (_ tx: Transaction, _ userID: Int64) throws -> [LiveInvalidation]

    private let hooks = Mutex<[(name: String, hook: Hook)]>([])

    public init() {}

    /// Adds a feature's hook. Hooks run in the order they were registered,
    /// and all of them before the user row goes (its cascades would otherwise
    /// remove rows a hook still needs, such as memberships to hand over).
    public func register(_ name: String, _ hook: @escaping Hook) {
        hooks.withLock { hooks in
            precondition(!hooks.contains { $0.name == name }, "purge hook registered twice: \(name)")
            hooks.append((name, hook))
        }
    }

    /// The registered hooks' names, in the order they run.
    public var names: [String] { hooks.withLock { $0.map(\.name) } }

    /// Runs every hook for `userID` inside `tx` and returns all they would
    /// invalidate. The list is copied out first, so a hook never runs while
    /// the registry is locked.
    public func run(_ tx: Transaction, userID: Int64) throws -> [LiveInvalidation] {
        var invalidations: [LiveInvalidation] = []
        for entry in hooks.withLock({ $0 }) {
            invalidations += try entry.hook(tx, userID)
        }
        return invalidations
    }
}

/// Deleting an account, which is final: every feature's purge hook, then the
/// user row with its sessions, recovery codes and sign-in links, and the
/// throttle's record of failed sign-ins under the username. Returns the
/// hooks' invalidations, for the caller to publish after its commit.
///
/// What others still see afterwards names the person as "a former member"
/// (`FormerMember`), never by name: rows that pointed at them are NULLed or
/// gone, and each place that shows a NULLed person says so (a tally's
/// "updated by", an occasion's adjustments and reports; timeline entries
/// whose content left with them are recorded by the occasions' hook). Inbox
/// entries are stored text, so rather than rewrite other people's inboxes
/// here, names in them are stored marked with their person and resolved when
/// read: one rule for entries delivered before and after the deletion, and
/// nothing to miss in this transaction. Pending digest events of the person
/// go with them (a cascade). Push messages already sent cannot change.
enum AccountDeletion {
    @discardableResult
    static func delete(_ tx: Transaction, user: User, purges: AccountPurge) throws -> [LiveInvalidation] {
        let invalidations = try purges.run(tx, userID: user.id)
        try RecoveryStore.deleteUser(tx, userID: user.id, failureScope: user.username.map(failureScope(username:)))
        return invalidations
    }

    /// The throttle's scope for a username, as sign-in writes it.
    static func failureScope(username: String) -> String {
        "user:" + AccountRules.usernameKey(username)
    }
}
