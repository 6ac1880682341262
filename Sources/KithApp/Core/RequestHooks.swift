import KithHTTP
import KithTemplates
import Synchronization

/// Decides, before any handler runs, whether a signed-in person may reach
/// `route` now; throws (usually a redirect) when not.
public typealias RequestGate = @Sendable (_ user: User, _ route: Route) throws -> Void

/// Something every signed-in page frame shows in its navigation (an unread
/// count), with the topics that keep it current wherever the person is.
public struct ViewerBadge: Sendable {
    public let topics: @Sendable (User) -> [String]
    /// Fills its part of the viewer. Called after the page's cursor was
    /// taken, like any page data; it cannot fail the page.
    public let fill: @Sendable (inout Viewer, User, KithApp) -> Void

    public init(topics: @escaping @Sendable (User) -> [String], fill: @escaping @Sendable (inout Viewer, User, KithApp) -> Void) {
        self.topics = topics
        self.fill = fill
    }
}

/// The gates and badges features declare, which `RequestContext` applies
/// to every request and page without naming whose they are.
public final class RequestHooks: Sendable {
    private let registered = Mutex<(gates: [RequestGate], badges: [ViewerBadge])>(([], []))

    init() {}

    func add(gate: @escaping RequestGate) { registered.withLock { $0.gates.append(gate) } }
    func add(badge: ViewerBadge) { registered.withLock { $0.badges.append(badge) } }

    var gates: [RequestGate] { registered.withLock { $0.gates } }
    var badges: [ViewerBadge] { registered.withLock { $0.badges } }
}
