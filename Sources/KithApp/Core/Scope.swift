import KithHTTP

/// A resource that belongs to a group — an occasion, a game, a tally — with
/// the viewer's place in it. Each feature has exactly one type conforming,
/// and its `load` is the one place that decides who may see the resource:
/// it returns nil for anyone outside, and every route goes through it.
public protocol Scope: Sendable {
    associatedtype ID: PathParameter
    /// The resource as `user` may see it, or nil when they are not part of it
    /// (or it does not exist: the two must look the same).
    static func load(_ id: ID, for user: User, in app: KithApp) throws -> Self?
}

extension RequestContext {
    /// The signed-in user's view of a scoped resource named by a path
    /// parameter. Outsiders get 404, never 403: a page that admits to
    /// existing would tell strangers what is there.
    public func load<S: Scope>(_ scope: S.Type, parameter name: String) throws -> S {
        let user = try requireUser()
        let id = try request.parameter(name, as: S.ID.self)
        guard let loaded = try S.load(id, for: user, in: app) else { throw HTTPError.notFound() }
        return loaded
    }
}
