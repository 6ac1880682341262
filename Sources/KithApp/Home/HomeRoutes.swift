import KithHTTP
import KithStorage
import KithTemplates

/// The front page: the landing page for visitors, the dashboard for people
/// signed in, made of the sections features registered.
enum HomeRoutes {
    static let home = Route(.get, "/")
    /// Which section leads the dashboard, chosen by the person.
    static let lead = Route(.post, "/home/lead")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(home) { context in
            guard let user = context.user else {
                return context.app.page(Landing.render(context: context.pageContext()))
            }
            // The live cursor before the sections read their data, so nothing
            // committed in between is missed.
            var page = context.pageContext(topics: context.app.dashboard.topics(for: user))
            (page.stylesheets, page.scripts) = context.app.dashboard.assets
            let chosen = try context.app.database.read { try HomeStore.leadSection($0, userID: user.id) }
            let sections = try context.app.dashboard.render(for: user, context: context, lead: chosen)
            let choices = context.app.dashboard.leadChoices
            let model = Dashboard.Model(
                displayName: user.displayName, isGuest: user.isGuest, sections: sections,
                lead: choices.count > 1 ? Dashboard.Lead(action: lead.path(), current: chosen ?? "", choices: choices) : nil)
            return context.app.page(Dashboard.render(context: page, model: model))
        }
        Endpoint(lead) { context in
            let user = try context.requireUser()
            let chosen = context.request.form["lead"] ?? ""
            let choices = context.app.dashboard.leadChoices
            guard chosen.isEmpty || choices.contains(where: { $0.value == chosen }) else {
                throw HTTPError.badRequest("Choose one of the home page's sections to show first.")
            }
            let label = choices.first { $0.value == chosen }?.label
            try context.app.database.write { tx in
                try HomeStore.setLeadSection(tx, userID: user.id, section: chosen.isEmpty ? nil : chosen)
                try context.flash(tx, label.map { "\($0) now come first." } ?? "Sections with something in them now come first.")
            }
            return .redirect(to: home.path())
        }
    }
}
