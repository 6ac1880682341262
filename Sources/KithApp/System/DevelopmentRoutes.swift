import KithHTTP
import KithTemplates
import Synchronization

/// Development mode only (`--dev`): the styleguide, which shows every token
/// and component in both themes, and a demonstration of live updates that the
/// SSE benchmark also uses.
enum DevelopmentRoutes {
    static let styleguide = Route(.get, "/styleguide")
    static let ping = Route(.post, "/styleguide/ping")
    static let pings = Route(.get, "/styleguide/pings")
    static let topic = "styleguide:demo"

    /// How many pings this process has seen; the demo fragment shows it.
    private static let count = Atomic<Int>(0)

    static func register(on app: KithApp) {
        guard app.configuration.development else { return }
        app.liveTopics.register(kind: "styleguide") { key, _ in key == "demo" }
        app.on(styleguide) { context in
            context.app.page(Styleguide.render(context: context.pageContext(topics: [topic]), live: counter(csrf: context.csrfToken)))
        }
        app.on(pings) { context in
            context.app.page(counter(csrf: context.csrfToken))
        }
        app.on(ping) { context in
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
