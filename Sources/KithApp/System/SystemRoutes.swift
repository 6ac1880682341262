import KithHTTP

/// Routes every deployment needs: health checks and static assets.
enum SystemRoutes {
    static let healthz = Route(.get, "/healthz", runsInline: true)
    static let asset = Route(.get, "/static/*file", runsInline: true)

    static func register(on router: Router<RequestContext>, app: KithApp) {
        router.on(healthz) { _ in
            var response = Response.text("ok\n")
            response.headers.add("Cache-Control", "no-store")
            return response
        }
        let assets = app.assets
        router.on(asset) { context in
            let name = try context.request.parameter("file", as: String.self)
            guard let response = assets.response(for: name, head: context.request.head) else { throw HTTPError.notFound() }
            return response
        }
    }
}
