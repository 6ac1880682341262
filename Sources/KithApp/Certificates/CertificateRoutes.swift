import KithHTTP

/// The http-01 challenge file (RFC 8555 §8.3). The CA fetches it over plain
/// HTTP on port 80 without cookies; it holds nothing secret (the key
/// authorisation is public by design), so there is no session or CSRF check.
enum CertificateRoutes {
    static let challenge = Route(.get, "/.well-known/acme-challenge/:token", runsInline: true)

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(challenge) { context in
            let token = try context.request.parameter("token", as: String.self)
            guard let answer = app.certificates.challenges.keyAuthorization(for: token) else { throw HTTPError.notFound() }
            var response = Response.text(answer)
            // A retried validation must see the current answer, never a cached one.
            response.headers.add("Cache-Control", "no-store")
            return response
        }
    }
}
