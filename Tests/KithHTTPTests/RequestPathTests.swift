import Glibc
@testable import KithHTTP
import KithTestSupport
import Testing

/// The per-request path after its allocations were cut: buffers a keep-alive
/// connection keeps between requests, the Date line cached per second, routing
/// over the path's bytes and the compressibility check read in place.
@Suite("The request path's reused buffers and cached parts")
struct RequestPathTests {
    @Test("the Date line follows the clock across a second on one connection")
    func dateAdvances() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send(get("/hello"))
        let first = try #require(try client.readResponse().header("Date"))
        // Wait for the wall clock to pass into a later second, then ask again.
        let start = time(nil)
        while time(nil) == start { usleep(20_000) }
        try client.send(get("/hello"))
        let second = try #require(try client.readResponse().header("Date"))
        #expect(first != second)
        let now = Int(time(nil))
        let expected = [now - 1, now].map { HTTPDate.format($0) }
        #expect(expected.contains(second), "\(second) is not the current second")
    }

    @Test("one connection answers small, large and small requests and responses in turn")
    func buffersKeptAndOutgrown() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        let padding = "X-Padding: " + String(repeating: "p", count: 3000) + "\r\n"
        for extra in ["", padding, "", padding, ""] {
            try client.send(get("/hello", extra))
            let hello = try client.readResponse()
            #expect(hello.status == 200)
            #expect(hello.text == "hello")
            try client.send(get("/items/7", extra))
            #expect(try client.readResponse().text == "item 7")
            try client.send(get("/static/data.txt", extra))
            let file = try client.readResponse()
            #expect(file.status == 200)
            #expect(file.body.count == 4000)
        }
        // Two small requests in one write after a large one: the kept input
        // buffer holds both, and both are answered in order.
        try client.send(get("/items/1", padding))
        #expect(try client.readResponse().text == "item 1")
        try client.send(get("/items/2") + get("/items/3"))
        #expect(try client.readResponse().text == "item 2")
        #expect(try client.readResponse().text == "item 3")
    }

    @Test("a rest parameter joins three or more segments, and a name of three dots is a name")
    func restJoined() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send(get("/static/a/b/c.css"))
        #expect(try client.readResponse().status == 404)
        try client.send(get("/static/.../x"))
        #expect(try client.readResponse().status == 404)
        let router = Router<EngineHarness.Context>(makeContext: { EngineHarness.Context(request: $0) })
        router.on(EngineHarness.asset) { _ in .text("") }
        guard case .matched(_, let parameters, _) = router.decide(method: .get, path: "/static/a/b%20c/d.css") else {
            Issue.record("expected a match")
            return
        }
        #expect(parameters["file"] == "a/b c/d.css")
        guard case .matched(_, let dots, _) = router.decide(method: .get, path: "//static//.../x") else {
            Issue.record("expected a match")
            return
        }
        #expect(dots["file"] == ".../x")
    }

    @Test("dot segments in plain bytes are refused like encoded ones")
    func plainDotSegments() {
        let router = Router<EngineHarness.Context>(makeContext: { EngineHarness.Context(request: $0) })
        router.on(EngineHarness.asset) { _ in .text("") }
        for path in ["/static/./x", "/static/x/..", "/static/.", "/static/a/../b", "/static/%2E/x"] {
            guard case .badPath = router.decide(method: .get, path: path) else {
                Issue.record("\(path) should be refused")
                continue
            }
        }
    }

    @Test("compressibility ignores case, parameters and spaces around the type")
    func compressibleSpelling() {
        for type in ["Text/HTML; charset=UTF-8", " text/css ", "application/problem+JSON", "IMAGE/SVG+XML;x=1", "text/plain\t;q"] {
            #expect(Compression.isCompressible(contentType: type), "\(type)")
        }
        for type in ["text", "image/png; x=text/html", "application/jsonx", "json", ";text/html", "xml"] {
            #expect(!Compression.isCompressible(contentType: type), "\(type)")
        }
    }
}

@Suite("Content-Length digits written straight into the head")
struct ContentLengthDigitsTests {
    @Test("every length prints as Swift would print it", arguments: [0, 7, 9, 10, 99, 4_361, 1_000_000, 50_483_200, Int64.max])
    func digits(_ length: Int64) {
        var out: [UInt8] = Array("x".utf8)
        EventLoop.appendDecimal(length, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "x" + String(length))
    }
}
