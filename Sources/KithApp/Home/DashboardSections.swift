import KithTemplates
import Synchronization

/// What each feature shows on the signed-in home page. Home knows nothing of
/// occasions, games or tallies: each feature registers its section once,
/// while the app is built, and renders it from its own store with the
/// viewer's rights. Sections appear in `order`, lowest first.
public final class DashboardSections: Sendable {
    /// A section's content for the signed-in viewer: a `<section>` with a
    /// heading, its list or an empty state.
    public typealias Render = @Sendable (_ user: User, _ context: RequestContext) throws -> HTML

    /// The live topics a section follows for `user`, known before anything
    /// is read so the page's cursor is taken first.
    public typealias Topics = @Sendable (_ user: User) -> [String]

    private struct Entry {
        var name: String
        var order: Int
        var topics: Topics
        var stylesheets: [String]
        var scripts: [String]
        var render: Render
    }

    private let sections = Mutex<[Entry]>([])

    public init() {}

    /// `stylesheets` and `scripts` are the section's own assets (below
    /// `Public/`), added to the home page's head.
    public func register(
        _ name: String, order: Int, topics: @escaping Topics = { _ in [] }, stylesheets: [String] = [], scripts: [String] = [],
        render: @escaping Render
    ) {
        sections.withLock { sections in
            precondition(!sections.contains { $0.name == name }, "dashboard section registered twice: \(name)")
            sections.append(Entry(name: name, order: order, topics: topics, stylesheets: stylesheets, scripts: scripts, render: render))
            sections.sort { ($0.order, $0.name) < ($1.order, $1.name) }
        }
    }

    /// Every section's topics for `user`, for the page's live subscription.
    func topics(for user: User) -> [String] {
        sections.withLock({ $0 }).flatMap { $0.topics(user) }
    }

    /// Every section's stylesheets and scripts, in section order.
    var assets: (stylesheets: [String], scripts: [String]) {
        let all = sections.withLock { $0 }
        return (all.flatMap(\.stylesheets), all.flatMap(\.scripts))
    }

    /// Every section, rendered for `user`, in order.
    func render(for user: User, context: RequestContext) throws -> [HTML] {
        try sections.withLock({ $0 }).map { try $0.render(user, context) }
    }
}
