import KithHTTP

/// Web Push: the server's public key, the subscription endpoints the
/// settings page's script calls, and the service worker.
enum PushRoutes {
    static let key = Route(.get, "/push/key")
    static let subscribe = Route(.post, "/push/subscribe")
    static let unsubscribe = Route(.post, "/push/unsubscribe")
    /// At the root, not under /static/: a worker's scope cannot be wider than
    /// its own folder unless the server allows it, and this one shows
    /// notifications for every page.
    static let serviceWorker = Route(.get, "/sw.js", runsInline: true)

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(key) { context in
            let key = try context.app.push.publicKey()
            var response = Response.bytes(Array(key.utf8), contentType: "text/plain; charset=utf-8")
            response.headers.add("Cache-Control", "no-cache")
            return response
        }

        // Called by push.js with form fields and the `X-CSRF-Token` header;
        // the central CSRF check has passed before these run.
        Endpoint(subscribe) { context in
            let user = try signedIn(context)
            let form = context.request.form
            try context.app.push.subscribe(
                userID: user.id, endpoint: form["endpoint"] ?? "", p256dh: form["p256dh"] ?? "", auth: form["auth"] ?? "",
                now: context.app.now)
            return Response(status: .noContent)
        }
        Endpoint(unsubscribe) { context in
            let user = try signedIn(context)
            try context.app.push.unsubscribe(userID: user.id, endpoint: context.request.form["endpoint"] ?? "")
            return Response(status: .noContent)
        }

        Endpoint(serviceWorker) { context in
            guard let asset = context.app.assets.asset(named: "js/sw.js") else { throw HTTPError.notFound() }
            var response = Response.bytes(asset.bytes, contentType: "text/javascript; charset=utf-8")
            // Browsers check for a new worker on navigation; no-cache makes
            // that check reach the server instead of a stale copy.
            response.headers.add("Cache-Control", "no-cache")
            response.headers.add("Service-Worker-Allowed", "/")
            return response
        }
    }

    /// A script's request gets a 401 rather than a redirect to a sign-in page it cannot show.
    private static func signedIn(_ context: RequestContext) throws -> User {
        guard let user = context.user else { throw HTTPError(.unauthorized, "Please sign in first.") }
        return user
    }
}
