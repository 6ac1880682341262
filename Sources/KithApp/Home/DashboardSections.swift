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

    /// A section's compact form, shown while the person has nothing in it
    /// ("No plate games yet · Start one"), and its name in the lead choice.
    public struct Start: Sendable {
        public var title: String
        public var empty: String
        public var action: String
        public var href: String
        public var isEmpty: @Sendable (_ user: User, _ context: RequestContext) throws -> Bool
        public init(
            title: String, empty: String, action: String, href: String,
            isEmpty: @escaping @Sendable (_ user: User, _ context: RequestContext) throws -> Bool
        ) {
            (self.title, self.empty, self.action, self.href, self.isEmpty) = (title, empty, action, href, isEmpty)
        }
    }

    private struct Entry {
        var name: String
        var order: Int
        var topics: Topics
        var stylesheets: [String]
        var scripts: [String]
        var start: Start?
        var render: Render
    }

    private let sections = Mutex<[Entry]>([])

    public init() {}

    /// `stylesheets` and `scripts` are the section's own assets (below
    /// `Public/`), added to the home page's head.
    public func register(
        _ name: String, order: Int, topics: @escaping Topics = { _ in [] }, stylesheets: [String] = [], scripts: [String] = [],
        start: Start? = nil, render: @escaping Render
    ) {
        sections.withLock { sections in
            precondition(!sections.contains { $0.name == name }, "dashboard section registered twice: \(name)")
            sections.append(
                Entry(name: name, order: order, topics: topics, stylesheets: stylesheets, scripts: scripts, start: start, render: render))
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

    /// The sections a person may choose to lead with: those that say what
    /// they are called.
    var leadChoices: [(value: String, label: String)] {
        sections.withLock({ $0 }).compactMap { entry in entry.start.map { (entry.name, $0.title) } }
    }

    /// Every section, rendered for `user`: the one they chose to lead
    /// first, then those with something in them, then each empty one as
    /// one compact row, each group in registered order.
    func render(for user: User, context: RequestContext, lead: String?) throws -> [HTML] {
        var rendered: [(rank: Int, html: HTML)] = []
        for entry in sections.withLock({ $0 }) {
            let empty = try entry.start.map { try $0.isEmpty(user, context) } ?? false
            let html =
                if empty, let start = entry.start {
                    Dashboard.start(name: entry.name, title: start.title, empty: start.empty, action: start.action, href: start.href)
                } else {
                    try entry.render(user, context)
                }
            rendered.append((entry.name == lead ? 0 : empty ? 2 : 1, Dashboard.slot(name: entry.name, html)))
        }
        // A stable sort keeps registered order inside each group.
        return rendered.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(\.element.html)
    }
}
