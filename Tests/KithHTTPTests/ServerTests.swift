import Foundation
import Glibc
import KithHTTP
import KithTestSupport
import Synchronization
import Testing

/// The engine against a real socket: a small app of test routes on port 0,
/// spoken to byte by byte.
final class EngineHarness: @unchecked Sendable {
    struct Context: Sendable { let request: Request }

    static let hello = Route(.get, "/hello")
    static let echo = Route(.post, "/echo", body: BodyPolicy(maxBytes: 1024))
    static let upload = Route(.post, "/upload", body: .uploads(maxFileBytes: 8 << 20, maxFiles: 2))
    static let block = Route(.get, "/block")
    static let item = Route(.get, "/items/:id")
    static let asset = Route(.get, "/static/*file", runsInline: true)
    static let download = Route(.get, "/download")
    static let events = Route(.get, "/events")
    static let crash = Route(.get, "/crash")
    static let whoami = Route(.get, "/whoami")
    static let count = Route(.post, "/count")
    static let form = Route(.post, "/form", body: .form)

    let server: Server
    let port: Int
    let latch = Latch()
    let directory: TemporaryDirectory
    let uploads = Locked<[UploadedFile]>([])
    let streams = Locked<[ResponseStream]>([])
    /// How many times `/count` ran.
    let counted = Locked(0)

    init(
        configure: (inout ServerConfiguration) -> Void = { _ in },
        admit: @escaping @Sendable (Request) -> Admission = { _ in .proceed }
    ) throws {
        directory = try TemporaryDirectory("kith-engine")
        let publicDirectory = directory.path + "/public"
        mkdir(publicDirectory, 0o755)
        try String(repeating: "0123456789", count: 400).write(toFile: publicDirectory + "/data.txt", atomically: true, encoding: .utf8)
        try "body { color: red }".write(toFile: publicDirectory + "/app.css", atomically: true, encoding: .utf8)
        mkdir(directory.path + "/tmp", 0o700)
        let assets = try StaticFiles(directory: publicDirectory)
        let downloadPath = publicDirectory + "/data.txt"

        let router = Router<Context>(makeContext: { Context(request: $0) })
        let latch = self.latch
        let uploads = self.uploads
        let streams = self.streams
        router.on(Self.hello) { _ in .text("hello") }
        router.on(Self.echo) { context in
            let request = context.request
            if !request.form.isEmpty {
                return .text(request.form.fields.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
            }
            return .bytes(request.body, contentType: "application/octet-stream")
        }
        router.on(Self.upload) { context in
            let files = context.request.form.allFiles
            uploads.withLock { $0 += files }
            let sizes = files.map { "\($0.filename):\($0.size):\(FileManager.default.fileExists(atPath: $0.path))" }
            return .text((context.request.form["title"] ?? "") + " " + sizes.joined(separator: ","))
        }
        router.on(Self.block) { _ in
            latch.wait()
            return .text("released")
        }
        router.on(Self.item) { context in
            let id = try context.request.parameter("id", as: Int64.self)
            return .text("item \(id)")
        }
        router.on(Self.asset) { context in
            let name = try context.request.parameter("file", as: String.self)
            guard let response = assets.response(for: name, head: context.request.head) else { throw HTTPError.notFound() }
            return response
        }
        router.on(Self.download) { context in
            try Response.file(at: downloadPath, contentType: "text/plain", request: context.request.head)
        }
        router.onEventStream(Self.events, keepingIn: streams)
        router.on(Self.whoami) { context in .text(context.request.remoteAddress) }
        let counted = self.counted
        router.on(Self.count) { _ in
            counted.withLock { $0 += 1 }
            return .text("counted")
        }
        router.on(Self.form) { context in .text("fields: \(context.request.form.fields.count)") }
        router.on(Self.crash) { _ in
            struct Secret: Error {}
            throw Secret()
        }

        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.workers = 4
        configuration.temporaryDirectory = directory.path + "/tmp"
        configuration.defaultHeaders.add("X-Content-Type-Options", "nosniff")
        configuration.documentHeaders.add("Content-Security-Policy", "default-src 'self'")
        configure(&configuration)
        server = Server(
            configuration: configuration, responder: TestResponder(router: router, admission: admit), logger: Logger(enabled: false))
        port = try server.start()
    }

    deinit {
        latch.open()
        server.shutdown()
    }

    func client() throws -> TestClient { try TestClient(port: port) }

    func temporaryFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/tmp")) ?? []
    }
}

struct TestResponder: HTTPResponder {
    let router: Router<EngineHarness.Context>
    let admission: @Sendable (Request) -> Admission

    func admit(_ request: Request) -> Admission { admission(request) }

    func decide(method: HTTPMethod, path: String) -> RouteDecision { router.decide(method: method, path: path) }

    func respond(to request: Request) -> Response {
        router.respond(to: request, errorResponse: { errorResponse($0, head: request.head) })
    }

    func errorResponse(_ error: HTTPError, head: RequestHead?) -> Response {
        var response = Response.text("<error>\(error.message)</error>", status: error.status)
        for (name, value) in error.headers { response.headers.add(name, value) }
        return response
    }
}

/// Blocks handler threads until a test lets them go.
final class Latch: Sendable {
    private let monitor = Monitor()
    private let state = Mutex((open: false, waiting: 0))

    func wait() {
        monitor.withLock {
            state.withLock { $0.waiting += 1 }
            while !state.withLock({ $0.open }) { monitor.wait() }
        }
    }

    var waiting: Int { state.withLock { $0.waiting } }

    func open() {
        monitor.withLock {
            state.withLock { $0.open = true }
            monitor.broadcast()
        }
    }
}

func get(_ path: String, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}

@Suite("The HTTP engine over real sockets")
struct ServerTests {
    @Test("keep-alive serves several requests on one connection")
    func keepAlive() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        for _ in 0..<3 {
            try client.send(get("/hello"))
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "hello")
            #expect(response.header("Connection") == nil)
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Date") != nil)
        }
    }

    @Test("pipelined requests are answered in order")
    func pipelining() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send(get("/items/1") + get("/items/2") + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc" + get("/items/3"))
        #expect(try client.readResponse().text == "item 1")
        #expect(try client.readResponse().text == "item 2")
        #expect(try client.readResponse().text == "abc")
        #expect(try client.readResponse().text == "item 3")
    }

    @Test("Connection: close is honoured and HTTP/1.0 closes by default")
    func connectionClose() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send(get("/hello", "Connection: close\r\n"))
        let response = try client.readResponse()
        #expect(response.header("Connection") == "close")
        #expect(try client.waitForClose(timeout: 5))

        let old = try harness.client()
        try old.send("GET /hello HTTP/1.0\r\n\r\n")
        #expect(try old.readResponse().text == "hello")
        #expect(try old.waitForClose(timeout: 5))
    }

    @Test("HEAD answers like GET without a body")
    func head() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse(headRequest: true)
        #expect(response.status == 200)
        #expect(response.header("Content-Length") == "5")
        try client.send(get("/hello"))
        #expect(try client.readResponse().text == "hello")
    }

    @Test("HTTP/1.1 without Host is a 400 and the connection closes")
    func missingHost() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send("GET /hello HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(try client.waitForClose(timeout: 5))
    }

    @Test("a malformed request line is a 400 and the connection closes")
    func malformed() throws {
        let harness = try EngineHarness()
        for bad in ["GET /hello HTTP/1.1 extra\r\nHost: t\r\n\r\n", "G\u{1}T / HTTP/1.1\r\nHost: t\r\n\r\n", "GET / HTTP/1.1\r\nHost: t\r\nBad Header: x\r\n\r\n"] {
            let client = try harness.client()
            try client.send(bad)
            let response = try client.readResponse()
            #expect(response.status == 400, "\(bad.debugDescription)")
            #expect(try client.waitForClose(timeout: 5))
        }
    }

    @Test("smuggling attempts are refused: Content-Length with chunked, duplicate lengths")
    func smuggling() throws {
        let harness = try EngineHarness()
        let attempts = [
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        ]
        for attempt in attempts {
            let client = try harness.client()
            try client.send(attempt + get("/hello"))
            let response = try client.readResponse()
            #expect(response.status == 400, "\(attempt.debugDescription)")
            #expect(try client.waitForClose(timeout: 5), "the smuggled request must never be answered")
        }
    }

    @Test("a chunked request body is decoded")
    func chunkedBody() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        #expect(try client.readResponse().text == "abcde")
    }

    @Test("an urlencoded form is parsed for the handler")
    func urlencodedForm() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        let body = "name=Ada+L&note=%3Cb%3E"
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(try client.readResponse().text == "name=Ada L&note=<b>")
    }

    @Test("headers over 16 KiB get 431")
    func headersTooLarge() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "a", count: 17 * 1024))\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 431)
        #expect(try client.waitForClose(timeout: 5))
    }

    @Test("a body over the route's limit gets 413 before it is read, and the client sees the page")
    func bodyTooLarge() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
        // The client goes on sending, as a browser would; the lingering close
        // keeps the response readable instead of resetting the connection.
        _ = client.trySend([UInt8](repeating: 0x61, count: 50_000))
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.text.contains("limit"))
        #expect(response.header("Connection") == "close")
    }

    @Test("a chunked body that grows past the limit gets 413")
    func chunkedTooLarge() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        let chunk = "400\r\n" + String(repeating: "x", count: 1024) + "\r\n"
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + chunk)
        #expect(try client.readResponse().status == 413)
    }

    @Test("unknown paths are 404, wrong methods 405 with Allow")
    func routing() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send(get("/nope"))
        #expect(try client.readResponse().status == 404)
        try client.send(get("/items/abc"))
        #expect(try client.readResponse().status == 404)
        try client.send("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
    }

    @Test("a handler's unexpected error is a 500 without internals")
    func crash() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send(get("/crash"))
        let response = try client.readResponse()
        #expect(response.status == 500)
        #expect(!response.text.contains("Secret"))
        try client.send(get("/hello"))
        #expect(try client.readResponse().text == "hello")
    }

    @Test("a client that stalls in its headers is cut off")
    func headerTimeout() throws {
        let harness = try EngineHarness { $0.headerTimeout = 0.5 }
        let client = try harness.client()
        try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n")
        #expect(try client.waitForClose(timeout: 5))
    }

    @Test("a body that makes no progress is cut off")
    func bodyTimeout() throws {
        let harness = try EngineHarness { $0.bodyProgressTimeout = 0.5 }
        let client = try harness.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        #expect(try client.waitForClose(timeout: 5))
    }

    @Test("a slow body that keeps making progress is not cut off")
    func slowBodyProgress() throws {
        let harness = try EngineHarness { $0.bodyProgressTimeout = 0.6 }
        let client = try harness.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\n")
        for byte in "abcdef" {
            usleep(250_000)
            try client.send(String(byte))
        }
        #expect(try client.readResponse().text == "abcdef")
    }

    @Test("an idle keep-alive connection is closed after the timeout")
    func idleTimeout() throws {
        let harness = try EngineHarness { $0.keepAliveTimeout = 0.5 }
        let client = try harness.client()
        try client.send(get("/hello"))
        _ = try client.readResponse()
        #expect(try client.waitForClose(timeout: 5))
    }

    @Test("connections over the cap are refused")
    func connectionCap() throws {
        let harness = try EngineHarness { $0.maxConnections = 2 }
        let first = try harness.client()
        let second = try harness.client()
        try first.send(get("/hello"))
        try second.send(get("/hello"))
        _ = try first.readResponse()
        _ = try second.readResponse()
        let third = try harness.client()
        #expect(try third.waitForClose(timeout: 5))
    }

    @Test("a handler blocked on a latch does not stall other requests")
    func handlerIsolation() throws {
        let harness = try EngineHarness()
        let blocked = try harness.client()
        try blocked.send(get("/block"))
        let deadline = Clock.now + 5
        while harness.latch.waiting == 0 && Clock.now < deadline { usleep(1000) }
        #expect(harness.latch.waiting == 1)
        for _ in 0..<20 {
            let other = try harness.client()
            try other.send(get("/hello"))
            #expect(try other.readResponse(timeout: 5).text == "hello")
        }
        #expect(try blocked.readSome(timeout: 0.05) == nil, "the blocked request is still waiting")
        harness.latch.open()
        #expect(try blocked.readResponse().text == "released")
    }

    @Test("handler threads start on demand: none at start, one per concurrent request up to the cap, and a burst is served")
    func lazyWorkers() throws {
        let harness = try EngineHarness()  // 4 workers
        #expect(harness.server.workerThreads == 0, "an idle server has started no handler thread")
        let first = try harness.client()
        try first.send(get("/hello"))
        #expect(try first.readResponse(timeout: 5).text == "hello")
        #expect(harness.server.workerThreads == 1, "one request at a time needs one thread")

        // Six requests that block: four threads start (the cap), two requests queue.
        let blocked = try (0..<6).map { _ in try harness.client() }
        for client in blocked { try client.send(get("/block")) }
        let deadline = Clock.now + 5
        while harness.latch.waiting < 4 && Clock.now < deadline { usleep(1000) }
        #expect(harness.latch.waiting == 4, "every started thread runs a handler at once")
        #expect(harness.server.workerThreads == 4, "never more threads than configured")
        usleep(50_000)
        #expect(harness.latch.waiting == 4, "the queued requests wait for a free thread")
        harness.latch.open()
        for client in blocked { #expect(try client.readResponse(timeout: 5).text == "released") }

        // A burst on many connections, after the threads exist, is all answered.
        let burst = try (0..<32).map { _ in try harness.client() }
        for client in burst { try client.send(get("/hello")) }
        for client in burst { #expect(try client.readResponse(timeout: 5).text == "hello") }
        #expect(harness.server.workerThreads == 4)
    }

    @Test("one write to many streams wakes each loop once and reaches every stream; a stream that stops reading is still dropped")
    func batchedStreamWrites() throws {
        let harness = try EngineHarness {
            $0.maxStreamUnsentBytes = 64 * 1024
            $0.eventLoops = 2
        }
        let clients = try (0..<8).map { _ in try harness.client() }
        for client in clients {
            try client.send(get("/events"))
            _ = try client.read(until: ": open\n\n", timeout: 5)
        }
        let streams = harness.streams.withLock { $0 }
        #expect(streams.count == 8)
        let refused = ResponseStream.write(Array("data: all\n\n".utf8), to: streams)
        #expect(refused.isEmpty)
        for client in clients { #expect(try client.read(until: "data: all\n\n", timeout: 5).contains("data: all")) }

        // The first client stops reading; the others keep up. Batched writes
        // fill only its buffers until the cap closes it.
        let chunk = [UInt8](repeating: 0x2E, count: 16 * 1024)
        var dropped: [ResponseStream] = []
        for _ in 0..<2000 where dropped.isEmpty {
            dropped = ResponseStream.write(chunk, to: streams)
            for client in clients.dropFirst() { _ = try client.readSome(timeout: 0.05) }
        }
        #expect(dropped.count == 1 && dropped.first === streams[0], "only the stream that stopped reading is refused")
        #expect(streams[0].closeReason == .slowConsumer)
        #expect(streams.dropFirst().allSatisfy { $0.isOpen })
    }

    @Test("static files: hashed names, ETag and 304, Range 206 and 416, no escape from the folder")
    func staticFiles() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send(get("/static/app.css"))
        let plain = try client.readResponse()
        #expect(plain.status == 200)
        #expect(plain.header("Content-Type") == "text/css; charset=utf-8")
        #expect(plain.header("Cache-Control") == "public, no-cache")
        let etag = try #require(plain.header("ETag"))

        try client.send(get("/static/app.css", "If-None-Match: \(etag)\r\n"))
        let notModified = try client.readResponse()
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        for stylesheet in [plain, notModified] {
            #expect(stylesheet.header("X-Content-Type-Options") == "nosniff")
            #expect(stylesheet.header("Content-Security-Policy") == nil, "a stylesheet is no document")
        }

        let assets = try StaticFiles(directory: harness.directory.path + "/public")
        let hashed = assets.url("app.css")
        #expect(hashed.hasPrefix("/static/app.") && hashed.hasSuffix(".css") && hashed != "/static/app.css")
        try client.send(get(hashed))
        let immutable = try client.readResponse()
        #expect(immutable.header("Cache-Control")?.contains("immutable") == true)

        try client.send(get("/static/data.txt", "Range: bytes=10-19\r\n"))
        let partial = try client.readResponse()
        #expect(partial.status == 206)
        #expect(partial.text == "0123456789")
        #expect(partial.header("Content-Range") == "bytes 10-19/4000")
        #expect(partial.header("Content-Security-Policy") == "default-src 'self'", "text may be opened as a page")

        try client.send(get("/static/data.txt", "Range: bytes=5000-\r\n"))
        let unsatisfiable = try client.readResponse()
        #expect(unsatisfiable.status == 416)
        #expect(unsatisfiable.header("Content-Range") == "bytes */4000")

        for escape in ["/static/../public/app.css", "/static/%2e%2e/public/app.css", "/static/..%2fpublic/app.css"] {
            let probe = try harness.client()
            try probe.send(get(escape))
            let response = try probe.readResponse()
            #expect(response.status == 400 || response.status == 404, "\(escape)")
        }
    }

    @Test("files from disk are sent with sendfile, with Range support")
    func fileRange() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send(get("/download"))
        let whole = try client.readResponse()
        #expect(whole.body.count == 4000)
        #expect(whole.header("Accept-Ranges") == "bytes")
        try client.send(get("/download", "Range: bytes=-4\r\n"))
        let tail = try client.readResponse()
        #expect(tail.status == 206)
        #expect(tail.text == "6789")
    }

    @Test("multipart file parts are streamed to disk and removed after the handler")
    func multipartUpload() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        let boundary = "----kithboundary"
        let payload = [UInt8]((0..<200_000).map { UInt8($0 % 251) })
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n".utf8)
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"beach.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        body += payload
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: \(body.count)\r\n\r\n")
        try client.send(body)
        let response = try client.readResponse()
        #expect(response.text == "Holiday beach.jpg:200000:true")
        let stored = try #require(harness.uploads.withLock { $0.first })
        #expect(!FileManager.default.fileExists(atPath: stored.path), "the temporary file is gone after the handler")
    }

    @Test("an aborted upload leaves no temporary file")
    func abortedUpload() throws {
        let harness = try EngineHarness()
        let boundary = "b0undary"
        do {
            let client = try harness.client()
            try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: 1000000\r\n\r\n")
            try client.send("--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\n\r\n" + String(repeating: "z", count: 300_000))
            let deadline = Clock.now + 5
            while harness.temporaryFiles().isEmpty && Clock.now < deadline { usleep(10_000) }
            #expect(harness.temporaryFiles().count == 1, "the part is being streamed to disk")
        }
        // The close is noticed on an event loop and the cleanup runs after: on a
        // busy machine that can take a while, so wait generously.
        let deadline = Clock.now + 20
        while !harness.temporaryFiles().isEmpty && Clock.now < deadline { usleep(10_000) }
        #expect(harness.temporaryFiles().isEmpty)
    }

    @Test("Expect: 100-continue gets an interim response before the body")
    func expectContinue() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.read(until: "\r\n\r\n", timeout: 5)
        #expect(interim.hasPrefix("HTTP/1.1 100 Continue"))
        try client.send("ok")
        #expect(try client.readResponse().text == "ok")
    }

    @Test("a stream is written from another thread, and a consumer that stops reading is dropped")
    func streams() throws {
        let harness = try EngineHarness { $0.maxStreamUnsentBytes = 64 * 1024 }
        let client = try harness.client()
        try client.send(get("/events"))
        let head = try client.read(until: ": open\n\n", timeout: 5)
        #expect(head.contains("text/event-stream"))
        let stream = try #require(harness.streams.withLock { $0.first })
        Threads.join(Threads.spawn(name: "writer") { _ = stream.write("data: hi\n\n") })
        #expect(try client.read(until: "data: hi", timeout: 5).contains("data: hi"))

        // Now stop reading: the kernel buffers fill, then the cap drops the stream.
        let chunk = [UInt8](repeating: 0x2E, count: 16 * 1024)
        var accepted = true
        for _ in 0..<2000 where accepted {
            accepted = stream.write(chunk)
            if accepted { usleep(200) }
        }
        #expect(!accepted)
        #expect(stream.closeReason == .slowConsumer)
    }

    @Test("a stream's end is reported when the client goes away")
    func streamDisconnect() throws {
        let harness = try EngineHarness()
        let ended = Locked(false)
        do {
            let client = try harness.client()
            try client.send(get("/events"))
            _ = try client.read(until: ": open\n\n", timeout: 5)
            let stream = try #require(harness.streams.withLock { $0.first })
            stream.onClose { ended.withLock { $0 = true } }
        }
        let deadline = Clock.now + 5
        while !ended.withLock({ $0 }) && Clock.now < deadline { usleep(10_000) }
        #expect(ended.withLock { $0 })
    }

    @Test("graceful shutdown lets an upload in progress finish, then stops")
    func gracefulShutdownDuringUpload() throws {
        let harness = try EngineHarness()
        let client = try harness.client()
        let idle = try harness.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nhello")
        usleep(300_000)
        let stopped = Locked(false)
        let stopper = Threads.spawn(name: "stopper") {
            harness.server.shutdown()
            stopped.withLock { $0 = true }
        }
        usleep(200_000)
        #expect(try idle.waitForClose(timeout: 5), "idle connections close at once")
        #expect(!stopped.withLock { $0 }, "shutdown waits for the upload")
        try client.send("world")
        let response = try client.readResponse()
        #expect(response.text == "helloworld")
        #expect(response.header("Connection") == "close")
        Threads.join(stopper)
        #expect(stopped.withLock { $0 })
        #expect(throws: (any Error).self) { _ = try TestClient(port: harness.port) }
    }
}
