import KithHTTP
import KithCrypto

/// Routes every deployment needs: health checks, static assets, the manifest.
enum SystemRoutes {
    /// On a worker: it asks the database, which may be across a network.
    static let healthz = Route(.get, "/healthz")
    static let asset = Route(.get, "/static/*file", runsInline: true)
    /// On a worker, not inline: it names the signed-in person's shortcuts.
    static let manifest = Route(.get, "/manifest.webmanifest")
    /// Any other GET: a 404 rendered on a worker, where the page can still
    /// show who is signed in.
    static let notFound = Route(.get, "/*unknown")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(notFound, fallback: true) { _ in throw HTTPError.notFound() }
        Endpoint(healthz) { context in
            var response = Response.text("ok\n")
            do {
                try context.app.database.checkReachable()
            } catch {
                // A load balancer takes the instance out until it answers.
                context.app.logger.log(["level": "error", "msg": "health check: database unreachable", "cause": "\(error)"])
                response = Response.text("database unreachable\n", status: .serviceUnavailable)
            }
            response.headers.add("Cache-Control", "no-store")
            return response
        }
        Endpoint(asset) { context in
            let name = try context.request.parameter("file", as: String.self)
            guard let response = context.app.assets.response(for: name, head: context.request.head) else {
                throw HTTPError.notFound()
            }
            return response
        }
        Endpoint(manifest) { context in
            let assets = context.app.assets
            func icon(_ name: String, _ size: String, purpose: String = "any") -> String {
                guard assets.asset(named: name) != nil else { return "" }
                return "{\"src\":\"\(assets.url(name))\",\"sizes\":\"\(size)\",\"type\":\"image/png\",\"purpose\":\"\(purpose)\"}"
            }
            let icons = [icon("icons/kith-192.png", "192x192"), icon("icons/kith-512.png", "512x512"),
                         icon("icons/kith-maskable-512.png", "512x512", purpose: "maskable")].filter { !$0.isEmpty }
            let shortcuts = try context.user.map { try context.app.manifestShortcuts.shortcuts(for: $0, context: context) } ?? []
            let shortcutIcon = icon("icons/kith-192.png", "192x192")
            let shortcutJSON = shortcuts.map {
                "{\"name\":\(JSONString.quoted($0.name)),\"url\":\(JSONString.quoted($0.url))\(shortcutIcon.isEmpty ? "" : ",\"icons\":[\(shortcutIcon)]")}"
            }
            let json = """
                {"name":"Kith","short_name":"Kith","description":"Occasions, plate games and tallies for small groups.",\
                "start_url":"/","scope":"/","display":"standalone","background_color":"#FBF7F4","theme_color":"#7C5CFC",\
                "icons":[\(icons.joined(separator: ","))]\(shortcutJSON.isEmpty ? "" : ",\"shortcuts\":[\(shortcutJSON.joined(separator: ","))]")}
                """
            var response = Response.bytes(Array(json.utf8), contentType: "application/manifest+json")
            // Whoever is signed in gets their own; no cache keeps it for another.
            response.headers.add("Cache-Control", context.user == nil ? "public, max-age=3600" : "private, no-store")
            response.headers.add("Vary", "Cookie")
            return response
        }
    }
}
