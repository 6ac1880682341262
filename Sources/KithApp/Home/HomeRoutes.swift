import KithHTTP
import KithTemplates

/// The front page. Signed out it is the landing page; the accounts feature
/// turns it into the dashboard for signed-in people.
enum HomeRoutes {
    static let home = Route(.get, "/")

    static func register(on app: KithApp) {
        app.on(home) { context in
            context.app.page(Landing.render(context: context.app.pageContext()))
        }
    }
}
