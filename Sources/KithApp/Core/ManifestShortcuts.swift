import Synchronization

/// What features add to the web manifest for the person signed in: the
/// shortcuts an installed Kith offers on a long press of its icon. The
/// manifest is personal once it has any, so it is never cached for others.
public final class ManifestShortcuts: Sendable {
    public struct Shortcut: Sendable, Equatable {
        public var name: String
        public var url: String
        public init(name: String, url: String) {
            self.name = name
            self.url = url
        }
    }

    public typealias Provider = @Sendable (_ user: User, _ context: RequestContext) throws -> [Shortcut]

    private let providers = Mutex<[Provider]>([])

    public init() {}

    func register(_ provider: @escaping Provider) {
        providers.withLock { $0.append(provider) }
    }

    /// Every feature's shortcuts for `user`, in the order features were installed.
    func shortcuts(for user: User, context: RequestContext) throws -> [Shortcut] {
        try providers.withLock({ $0 }).flatMap { try $0(user, context) }
    }
}
