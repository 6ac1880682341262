import KithHTTP
import Testing

@Suite("Routes as data")
struct RouterTests {
    struct Context: Sendable { let request: Request }

    static let home = Route(.get, "/")
    static let new = Route(.get, "/tallies/new")
    static let show = Route(.get, "/tallies/:tally")
    static let gift = Route(.get, "/occasions/:occasion/gifts/:gift")
    static let increment = Route(.post, "/tallies/:tally/increment")
    static let files = Route(.get, "/static/*file")

    func router() -> Router<Context> {
        let router = Router<Context>(makeContext: { Context(request: $0) })
        for route in [Self.home, Self.new, Self.show, Self.gift, Self.increment, Self.files] {
            router.on(route) { _ in .text("") }
        }
        return router
    }

    func matched(_ decision: RouteDecision) -> (Route, PathParameters)? {
        if case .matched(let route, let parameters, _) = decision { return (route, parameters) }
        return nil
    }

    @Test("literal segments win when registered first, parameters capture the rest")
    func matching() throws {
        let router = router()
        #expect(matched(router.decide(method: .get, path: "/"))?.0 == Self.home)
        #expect(matched(router.decide(method: .get, path: "/tallies/new"))?.0 == Self.new)
        let (route, parameters) = try #require(matched(router.decide(method: .get, path: "/tallies/42")))
        #expect(route == Self.show)
        #expect(parameters["tally"] == "42")
        let (_, gift) = try #require(matched(router.decide(method: .get, path: "/occasions/7/gifts/9")))
        #expect(gift["occasion"] == "7" && gift["gift"] == "9")
    }

    @Test("a rest parameter takes every remaining segment")
    func rest() throws {
        let (_, parameters) = try #require(matched(router().decide(method: .get, path: "/static/css/app.css")))
        #expect(parameters["file"] == "css/app.css")
    }

    @Test("path segments are percent-decoded once")
    func decoding() throws {
        let (_, parameters) = try #require(matched(router().decide(method: .get, path: "/tallies/caf%C3%A9")))
        #expect(parameters["tally"] == "café")
    }

    @Test("dot segments, encoded slashes, NUL and bad escapes are refused")
    func badPaths() {
        let router = router()
        for path in ["/static/../x", "/static/%2e%2e/x", "/static/a%2Fb", "/tallies/%00", "/tallies/%zz", "/tallies/%FF"] {
            guard case .badPath = router.decide(method: .get, path: path) else {
                Issue.record("\(path) should be refused")
                continue
            }
        }
    }

    @Test("an unknown path is not found; a known path with another method is 405 with the allowed ones")
    func notFoundAndMethods() {
        let router = router()
        guard case .notFound = router.decide(method: .get, path: "/nothing") else {
            Issue.record("expected notFound")
            return
        }
        guard case .methodNotAllowed(let allowed) = router.decide(method: .delete, path: "/tallies/3") else {
            Issue.record("expected methodNotAllowed")
            return
        }
        #expect(allowed == [.get, .head])
    }

    @Test("a fallback answers unknown GET paths only, whenever it was registered")
    func fallback() throws {
        let router = router()
        let fallback = Route(.get, "/*unknown")
        router.fallback(fallback) { _ in .text("") }
        router.on(Route(.get, "/late")) { _ in .text("") }
        #expect(matched(router.decide(method: .get, path: "/nothing/here"))?.0 == fallback)
        #expect(matched(router.decide(method: .head, path: "/nothing"))?.0 == fallback)
        #expect(matched(router.decide(method: .get, path: "/late"))?.0 == Route(.get, "/late"), "a later route still wins")
        guard case .notFound = router.decide(method: .post, path: "/nothing") else {
            Issue.record("a POST to nowhere is still a plain 404")
            return
        }
        guard case .methodNotAllowed = router.decide(method: .delete, path: "/tallies/3") else {
            Issue.record("a known path keeps its 405")
            return
        }
    }

    @Test("GET routes answer HEAD")
    func headFallsBackToGet() {
        #expect(matched(router().decide(method: .head, path: "/tallies/3"))?.0 == Self.show)
    }

    @Test("URLs are built from the same route, with values encoded")
    func building() {
        #expect(Self.show.path(Int64(42)) == "/tallies/42")
        #expect(Self.gift.path(Int64(7), Int64(9)) == "/occasions/7/gifts/9")
        #expect(Self.show.path("a b/c") == "/tallies/a%20b%2Fc")
        #expect(Self.home.path() == "/")
    }

    @Test("typed parameters: canonical integers only")
    func typedParameters() {
        #expect(Int64(pathComponent: "42") == 42)
        #expect(Int64(pathComponent: "042") == nil)
        #expect(Int64(pathComponent: "+4") == nil)
        #expect(Int64(pathComponent: "-4") == nil)
        #expect(Int64(pathComponent: "99999999999999999999") == nil)
        #expect(String(pathComponent: "") == nil)
    }

    @Test("forms default to a body limit, safe methods to none")
    func bodyPolicies() {
        #expect(Self.show.body.maxBytes == 0)
        #expect(Self.increment.body.maxBytes == BodyPolicy.form.maxBytes)
    }
}
