import KithHTTP
import KithTemplates
import Synchronization

/// Development mode only (`--dev`): the styleguide, which shows every token
/// and component in both themes, a demonstration of live updates that the
/// SSE benchmark also uses, and the count of SQL statements run so far, which
/// the growth benchmark reads around a page to count its statements.
enum DevelopmentRoutes {
    static let styleguide = Route(.get, "/styleguide")
    static let ping = Route(.post, "/styleguide/ping")
    static let pings = Route(.get, "/styleguide/pings")
    static let statements = Route(.get, "/styleguide/statements")
    static let topic = "styleguide:demo"

    /// How many pings this process has seen; the demo fragment shows it.
    private static let count = Atomic<Int>(0)

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(styleguide) { context in
            context.app.page(Styleguide.render(context: context.pageContext(topics: [topic]), live: counter(csrf: context.csrfToken)))
        }
        Endpoint(pings) { context in
            context.app.page(counter(csrf: context.csrfToken))
        }
        // Runs no statement itself, so two reads around a page differ by
        // exactly the page's statements.
        Endpoint(statements) { context in
            .text("\(context.app.database.statementsRun)\n")
        }
        Endpoint(ping) { context in
            count.add(1, ordering: .relaxed)
            context.app.live.publish(topic: topic, fragments: [FragmentID.styleguidePings])
            return .redirect(to: styleguide.path())
        }
    }

    static func counter(csrf: String) -> HTML {
        Styleguide.liveDemo(
            count: count.load(ordering: .relaxed), fragmentURL: pings.path(), pingAction: ping.path(), csrfToken: csrf)
    }
}
