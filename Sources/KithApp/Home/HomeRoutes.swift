import KithHTTP
import KithTemplates

/// The front page: the landing page for visitors, the dashboard for people
/// signed in, made of the sections features registered.
enum HomeRoutes {
    static let home = Route(.get, "/")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(home) { context in
            guard let user = context.user else {
                return context.app.page(Landing.render(context: context.pageContext()))
            }
            // The live cursor before the sections read their data, so nothing
            // committed in between is missed.
            var page = context.pageContext(topics: context.app.dashboard.topics(for: user))
            (page.stylesheets, page.scripts) = context.app.dashboard.assets
            let sections = try context.app.dashboard.render(for: user, context: context)
            let model = Dashboard.Model(displayName: user.displayName, isGuest: user.isGuest, sections: sections)
            return context.app.page(Dashboard.render(context: page, model: model))
        }
    }
}
