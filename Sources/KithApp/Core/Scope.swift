import KithHTTP
import KithStorage

/// A resource that belongs to a group — an occasion, a game, a tally — with
/// the viewer's place in it. Each feature has exactly one type conforming,
/// and its `load` is the one place that decides who may see the resource:
/// it returns nil for anyone outside, and every route goes through it.
public protocol Scope: Sendable {
    associatedtype ID: PathParameter
    /// The resource as `user` may see it in `db`, or nil when they are not
    /// part of it (or it does not exist: the two must look the same). Taking
    /// any connection lets a write ask again inside its own transaction.
    static func load(_ id: ID, for user: User, in db: some Queryable) throws -> Self?
}

extension Scope {
    /// The resource as `user` may see it now, read in a snapshot of its own.
    public static func load(_ id: ID, for user: User, in app: KithApp) throws -> Self? {
        try app.database.read { try load(id, for: user, in: $0) }
    }
}

extension KithApp {
    /// Runs `body` in one write transaction with the scope loaded again
    /// inside it, by the same rule: access checked when the request began
    /// may have ended since (a member removed, a share taken back), and a
    /// write must not outlive it. Someone no longer inside gets 404 and the
    /// transaction writes nothing.
    public func write<S: Scope, T>(_ scope: S.Type, _ id: S.ID, for user: User, _ body: (Transaction, S) throws -> T) throws -> T {
        try database.write { tx in
            guard let current = try S.load(id, for: user, in: tx) else { throw HTTPError.outsideScope() }
            return try body(tx, current)
        }
    }
}

extension RequestContext {
    /// The signed-in user's view of a scoped resource named by a path
    /// parameter. Outsiders get 404, never 403: a page that admits to
    /// existing would tell strangers what is there.
    public func load<S: Scope>(_ scope: S.Type, parameter name: String) throws -> S {
        let user = try requireUser()
        let id = try request.parameter(name, as: S.ID.self)
        guard let loaded = try S.load(id, for: user, in: app) else { throw HTTPError.outsideScope() }
        return loaded
    }

    /// A scoped write: `body` gets the transaction and the scope as it is
    /// inside it (see `KithApp.write`), so every feature's actions re-check
    /// access the same way.
    public func write<S: Scope, T>(_ scope: S.Type, parameter name: String, _ body: (Transaction, S) throws -> T) throws -> T {
        let user = try requireUser()
        let id = try request.parameter(name, as: S.ID.self)
        return try app.write(S.self, id, for: user, body)
    }
}
