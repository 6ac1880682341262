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

    @Test("registration order decides between a parameter-first and a literal route, whichever came first")
    func parameterFirstOrder() throws {
        let router = Router<Context>(makeContext: { Context(request: $0) })
        let early = Route(.get, "/:user/profile")
        let literal = Route(.get, "/account/profile")
        let literalOnly = Route(.get, "/account/settings")
        let late = Route(.get, "/:user/settings")
        let deleteAny = Route(.delete, "/:user/settings")
        for route in [early, literal, literalOnly, late, deleteAny] { router.on(route) { _ in .text("") } }
        // The parameter route was registered first, so it wins for /account too.
        #expect(matched(router.decide(method: .get, path: "/account/profile"))?.0 == early)
        #expect(matched(router.decide(method: .get, path: "/account/settings"))?.0 == literalOnly)
        // A first segment no literal route has still reaches the parameter routes.
        let (route, parameters) = try #require(matched(router.decide(method: .get, path: "/ada/settings")))
        #expect(route == late && parameters["user"] == "ada")
        // 405 collects the methods of every candidate, the literal's and the parameter's.
        guard case .methodNotAllowed(let allowed) = router.decide(method: .post, path: "/account/settings") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == [.get, .delete, .head])
    }

    @Test("a literal matches however its letters were escaped, and a rest is joined by single slashes")
    func escapedLiteralsAndRest() throws {
        let router = router()
        #expect(matched(router.decide(method: .get, path: "/t%61llies/new"))?.0 == Self.new)
        let (_, parameters) = try #require(matched(router.decide(method: .get, path: "/static//css///app%2Ecss")))
        #expect(parameters["file"] == "css/app.css")
        let (_, accented) = try #require(matched(router.decide(method: .get, path: "/static/caf%C3%A9/\u{301}x")))
        #expect(accented["file"] == "café/\u{301}x")
        #expect(matched(router.decide(method: .get, path: "/tallies/new/"))?.0 == Self.new, "a trailing slash is an empty segment")
        guard case .notFound = router.decide(method: .get, path: "/tallies/new/extra/more") else {
            Issue.record("a longer path than any pattern is not found")
            return
        }
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
