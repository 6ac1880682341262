import KithHTTP
import KithTemplates

/// The front page: the landing page for visitors, the dashboard for people
/// signed in.
enum HomeRoutes {
    static let home = Route(.get, "/")

    static func register(on app: KithApp) {
        app.on(home) { context in
            guard let user = context.user else {
                return context.app.page(Landing.render(context: context.pageContext()))
            }
            let model = Dashboard.Model(displayName: user.displayName, isGuest: user.isGuest)
            return context.app.page(Dashboard.render(context: context.pageContext(), model: model))
        }
    }
}
