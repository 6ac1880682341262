import Foundation
import Glibc
@testable import KithHTTP
import KithTestSupport
import Testing

/// An engine with routes for HTTP/2: items, a file for ranges, event
/// streams with publish and flood, uploads to disk, and a handler that waits.
final class HTTP2Harness: @unchecked Sendable {
    let server: Server
    let port: Int
    let latch = Latch()
    let directory: TemporaryDirectory
    let streams = Locked<[ResponseStream]>([])
    let counted = Locked(0)
    /// The content of /file: 100 000 bytes, each its offset modulo 251.
    static let fileBytes = (0..<100_000).map { UInt8($0 % 251) }
    /// The body of /large, held in memory: 3 MB, each byte its offset modulo 241.
    static let largeBytes = (0..<(3 << 20)).map { UInt8($0 % 241) }
    /// Served under /static/: a stylesheet large enough to span several DATA frames.
    static let styleText = (0..<2_000).map { ".rule-\($0) { margin: \($0 % 7)px; }\n" }.joined()
    let assets: StaticFiles

    init(configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory("kith-h2")
        mkdir(directory.path + "/tmp", 0o700)
        let filePath = directory.path + "/file.bin"
        try Data(Self.fileBytes).write(to: URL(fileURLWithPath: filePath))
        let temporary = directory.path + "/tmp/"
        mkdir(directory.path + "/public", 0o700)
        try Data(Self.styleText.utf8).write(to: URL(fileURLWithPath: directory.path + "/public/site.css"))
        assets = try StaticFiles(directory: directory.path + "/public")
        let assets = self.assets

        let router = Router<EngineHarness.Context>(makeContext: { EngineHarness.Context(request: $0) })
        let latch = self.latch
        let streams = self.streams
        let counted = self.counted
        router.on(Route(.get, "/hello")) { _ in .text("hello") }
        router.on(Route(.get, "/items/:id")) { context in
            .text("item \(try context.request.parameter("id", as: Int64.self))")
        }
        router.on(Route(.get, "/file")) { context in
            try Response.file(at: filePath, contentType: "application/octet-stream", request: context.request.head)
        }
        router.on(Route(.get, "/large")) { _ in
            .bytes(Self.largeBytes, contentType: "application/octet-stream")
        }
        router.on(Route(.get, "/segments")) { _ in
            Response(status: .ok, body: .segments([
                .bytes(Array("head-".utf8)), .file(path: filePath, length: Int64(Self.fileBytes.count)), .bytes(Array("-tail".utf8)),
            ]))
        }
        router.on(Route(.get, "/static/*file", runsInline: true)) { context in
            let name = context.request.path.dropFirst("/static/".count)
            guard let response = assets.response(for: String(name), head: context.request.head) else {
                throw HTTPError(.notFound, "No such file.")
            }
            return response
        }
        router.onEventStream(Route(.get, "/events"), keepingIn: streams)
        router.on(Route(.get, "/publish")) { context in
            let text = context.request.query["text"] ?? ""
            let refused = ResponseStream.write(Array("data: \(text)\n\n".utf8), to: streams.value)
            return .text("published to \(streams.value.count - refused.count)")
        }
        router.on(Route(.get, "/flood")) { context in
            let total = Int(context.request.query["bytes"] ?? "") ?? 0
            let line = Array(("data: " + String(repeating: "x", count: 8185) + "\n\n").utf8)
            for _ in 0..<(total / line.count) {
                for stream in streams.value { _ = stream.write(line) }
            }
            return .text("flooded")
        }
        router.on(Route(.post, "/upload", body: .uploads(maxFileBytes: 32 << 20, maxFiles: 1))) { context in
            let form = context.request.form
            let files = form.allFiles.map { file -> String in
                let onDisk = (try? Data(contentsOf: URL(fileURLWithPath: file.path))) ?? Data()
                let intact = onDisk.count == Int(file.size) && onDisk.enumerated().allSatisfy { $0.element == UInt8($0.offset % 256) }
                return "\(file.size):\(file.path.hasPrefix(temporary)):\(intact)"
            }
            return .text("\(form["title"] ?? "") \(files.joined(separator: ","))")
        }
        router.on(Route(.post, "/echo", body: BodyPolicy(maxBytes: 1024))) { context in
            .bytes(context.request.body, contentType: "application/octet-stream")
        }
        router.on(Route(.get, "/block")) { _ in
            latch.wait()
            return .text("released")
        }
        router.on(Route(.get, "/count")) { _ in
            counted.withLock { $0 += 1 }
            return .text("counted")
        }

        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoops = 1
        configuration.workers = 4
        configuration.temporaryDirectory = directory.path + "/tmp"
        configuration.defaultHeaders.add("X-Content-Type-Options", "nosniff")
        configuration.documentHeaders.add("Content-Security-Policy", "default-src 'self'")
        configure(&configuration)
        let admit: @Sendable (Request) -> Admission = { request in
            request.headers["X-Refuse"] == nil ? .proceed : .refuse(HTTPError(.forbidden, "Not for you."))
        }
        server = Server(
            configuration: configuration, responder: TestResponder(router: router, admission: admit),
            logger: Logger(enabled: false))
        port = try server.start()
    }

    deinit {
        latch.open()
        server.shutdown()
    }

    func temporaryFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/tmp")) ?? []
    }

    /// Polls until `condition` holds or `seconds` pass; the result says which.
    func eventually(_ seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }
}

@Suite("HTTP/2 on the engine (Python h2, prior knowledge)", .enabled(if: HTTP2Client.available), .serialized)
struct HTTP2Tests {
    @Test("a hundred concurrent requests on one connection are all answered, each with its own body")
    func concurrentStreams() throws {
        let harness = try HTTP2Harness()
        let result = try HTTP2Client.run("concurrent", port: harness.port, ["100"])
        #expect(result["right"] as? Int == 100)
        #expect(result["statuses"] as? [Int] == [200])
        #expect(result["reset"] as? Int == 0)
    }

    @Test("HTTP/1.1 still answers on the same port, after HTTP/2 and beside it")
    func http1Unchanged() throws {
        let harness = try HTTP2Harness()
        _ = try HTTP2Client.run("get", port: harness.port, ["/hello"])
        let client = try TestClient(port: harness.port)
        try client.send("GET /items/7 HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "item 7")
    }

    @Test("responses carry lower-case headers, the defaults, a length, and nothing connection-specific")
    func responseHeaders() throws {
        let harness = try HTTP2Harness()
        let result = try HTTP2Client.run("get", port: harness.port, ["/hello"])
        let headers = try #require(result["headers"] as? [String: String])
        #expect(result["status"] as? Int == 200)
        #expect(result["body"] as? String == "hello")
        #expect(headers["content-length"] == "5")
        #expect(headers["x-content-type-options"] == "nosniff")
        #expect(headers["content-security-policy"] == "default-src 'self'")
        #expect(headers["date"] != nil)
        #expect(headers.keys.allSatisfy { $0 == $0.lowercased() })
        #expect(headers["connection"] == nil && headers["transfer-encoding"] == nil && headers["keep-alive"] == nil)
        let missing = try HTTP2Client.run("get", port: harness.port, ["/nowhere"])
        #expect(missing["status"] as? Int == 404)
    }

    @Test("twenty event streams on one connection each receive a publish")
    func eventStreams() throws {
        let harness = try HTTP2Harness()
        let result = try HTTP2Client.run("events", port: harness.port, ["20"])
        #expect(result["opened"] as? Bool == true)
        #expect(result["received"] as? Int == 20)
        #expect(result["publish"] as? String == "published to 20")
        #expect(result["types"] as? [String] == ["text/event-stream"])
    }

    @Test("a stream whose reader stops is reset at the per-stream cap; its neighbour reads everything")
    func slowReader() throws {
        let harness = try HTTP2Harness()
        let cap = harness.server.configuration.maxStreamUnsentBytes
        // Each flood fits under the cap; two of them do not.
        let each = cap * 3 / 4
        let result = try HTTP2Client.run("slow", port: harness.port, [String(each)])
        #expect(result["heldReset"] as? Int == 8)  // CANCEL
        #expect((result["heldBytes"] as? Int ?? .max) <= 1024)
        #expect(result["readerIntact"] as? Bool == true)
        #expect(result["readerReset"] as? Bool == false)
        let reasons = harness.streams.value.map(\.closeReason)
        #expect(reasons.contains(.slowConsumer))
        #expect(harness.streams.value.allSatisfy { $0.unsentBytes <= cap })
    }

    @Test("a 20 MB upload is streamed to a temporary file through flow control")
    func largeUpload() throws {
        let harness = try HTTP2Harness()
        let size = 20 << 20
        let result = try HTTP2Client.run("upload", port: harness.port, [String(size)])
        #expect(result["status"] as? Int == 200)
        #expect(result["body"] as? String == "big \(size):true:true")
        #expect(result["sent"] as? Int == result["total"] as? Int)
        #expect(harness.eventually { harness.temporaryFiles().isEmpty && harness.server.uploadBytesInUse == 0 })
    }

    @Test("an upload the application refuses is answered before any of it is stored")
    func refusedUpload() throws {
        let harness = try HTTP2Harness()
        let result = try HTTP2Client.run("upload", port: harness.port, [String(4 << 20), "refuse"])
        #expect(result["status"] as? Int == 403)
        #expect((result["body"] as? String)?.contains("Not for you.") == true)
        // The window stayed shut: at most what a client may send before it
        // has seen the server's settings, never the file.
        #expect((result["sent"] as? Int ?? .max) <= 65_535)
        #expect(harness.temporaryFiles().isEmpty)
        #expect(harness.server.uploadBytesInUse == 0)
    }

    @Test("a body the route takes is read; one larger than it allows is refused from its declared length")
    func bodyLimits() throws {
        let harness = try HTTP2Harness()
        let small = try HTTP2Client.run(
            "post", port: harness.port, ["/echo", "ping", "content-type: application/octet-stream"])
        #expect(small["status"] as? Int == 200)
        #expect(small["body"] as? String == "ping")
        let large = try HTTP2Client.run(
            "post", port: harness.port, ["/echo", String(repeating: "a", count: 5000), "content-type: application/octet-stream"])
        #expect(large["status"] as? Int == 413)
        #expect((large["body"] as? String)?.contains("the limit here is 1 KB") == true)
        let wrongMethod = try HTTP2Client.run("get", port: harness.port, ["/echo"])
        #expect(wrongMethod["status"] as? Int == 405)
    }

    @Test("Range gets 206 with the right bytes, and an unsatisfiable range 416")
    func range() throws {
        let harness = try HTTP2Harness()
        let partial = try HTTP2Client.run("get", port: harness.port, ["/file", "range: bytes=1000-1099"])
        #expect(partial["status"] as? Int == 206)
        let headers = try #require(partial["headers"] as? [String: String])
        #expect(headers["content-range"] == "bytes 1000-1099/100000")
        #expect(headers["content-length"] == "100")
        let expected = String(decoding: HTTP2Harness.fileBytes[1000..<1100], as: UTF8.self)
        #expect(partial["body"] as? String == expected)
        let whole = try HTTP2Client.run("get", port: harness.port, ["/file"])
        #expect(whole["status"] as? Int == 200)
        #expect((whole["headers"] as? [String: String])?["content-length"] == "100000")
        let beyond = try HTTP2Client.run("get", port: harness.port, ["/file", "range: bytes=200000-"])
        #expect(beyond["status"] as? Int == 416)
    }

    /// Checks each body of a `bulk` run against what the server holds.
    private func expectWhole(_ result: [String: Any], _ expected: [String: [UInt8]]) {
        for (path, bytes) in expected {
            let got = result[path] as? [String: Any]
            #expect(got?["status"] as? Int == 200, "\(path)")
            #expect(got?["reset"] is NSNull, "\(path)")
            #expect(got?["length"] as? Int == bytes.count, "\(path)")
            #expect(got?["sha256"] as? String == StaticFiles.hexDigest(bytes), "\(path)")
        }
    }

    private var bulkBodies: [String: [UInt8]] {
        [
            "/large": HTTP2Harness.largeBytes, "/large?again": HTTP2Harness.largeBytes, "/file": HTTP2Harness.fileBytes,
            "/segments": Array("head-".utf8) + HTTP2Harness.fileBytes + Array("-tail".utf8),
            "/static/site.css": Array(HTTP2Harness.styleText.utf8),
        ]
    }

    @Test("bodies from memory, a file and segments arrive whole and in order through 4 KB windows and a slow reader")
    func smallWindows() throws {
        let harness = try HTTP2Harness()
        // One copy of the large body: at 4 KB a round trip, two would only add time.
        let bodies = bulkBodies.filter { $0.key != "/large?again" }
        let result = try HTTP2Client.run("bulk", port: harness.port, ["4096", "0.0005"] + bodies.keys.sorted())
        expectWhole(result, bodies)
    }

    @Test("with windows far larger than the send batch, concurrent large bodies still arrive whole and in order")
    func largeWindows() throws {
        let harness = try HTTP2Harness()
        let bodies = bulkBodies
        let result = try HTTP2Client.run("bulk", port: harness.port, [String(64 << 20), "0"] + bodies.keys.sorted())
        expectWhole(result, bodies)
    }

    @Test("a static asset carries its prepared fields over HTTP/2, per encoding and caching rule")
    func staticAssetFields() throws {
        let harness = try HTTP2Harness()
        let asset = try #require(harness.assets.asset(named: "site.css"))
        let plain = try HTTP2Client.run("get", port: harness.port, ["/static/site.css"])
        let plainHeaders = try #require(plain["headers"] as? [String: String])
        #expect(plain["status"] as? Int == 200)
        #expect(plainHeaders["content-type"] == "text/css; charset=utf-8")
        #expect(plainHeaders["cache-control"] == "public, no-cache")
        #expect(plainHeaders["etag"] == asset.variants[0].etag)
        #expect(plainHeaders["accept-ranges"] == "bytes")
        #expect(plainHeaders["vary"] == "Accept-Encoding")
        #expect(plainHeaders["content-encoding"] == nil)
        #expect(plainHeaders["content-length"] == String(HTTP2Harness.styleText.utf8.count))
        #expect(plainHeaders["x-content-type-options"] == "nosniff")
        #expect(plainHeaders["content-security-policy"] == nil, "a stylesheet gets no document headers")
        #expect(plainHeaders["date"] != nil)

        let gzip = try #require(asset.variant(.gzip))
        let hashed = try HTTP2Client.run(
            "get", port: harness.port, ["/static/" + asset.hashedName, "accept-encoding: gzip"])
        let hashedHeaders = try #require(hashed["headers"] as? [String: String])
        #expect(hashedHeaders["content-encoding"] == "gzip")
        #expect(hashedHeaders["cache-control"] == "public, max-age=31536000, immutable")
        #expect(hashedHeaders["etag"] == gzip.etag)
        #expect(hashedHeaders["content-length"] == String(gzip.bytes.count))
    }

    @Test("an oversized header block is answered 431")
    func oversizedHeaders() throws {
        let harness = try HTTP2Harness()
        let big = "x-big: " + String(repeating: "a", count: 20_000)
        let result = try HTTP2Client.run("get", port: harness.port, ["/hello", big])
        #expect(result["status"] as? Int == 431)
        let after = try HTTP2Client.run("get", port: harness.port, ["/hello"])
        #expect(after["status"] as? Int == 200)
    }

    @Test("a rapid-reset flood ends in GOAWAY, runs few handlers, and others are still served")
    func rapidReset() throws {
        let harness = try HTTP2Harness()
        let count = 5000
        let result = try HTTP2Client.run("rapid", port: harness.port, [String(count)])
        let goaway = try #require(result["goaway"] as? [String: Any])
        #expect(goaway["error"] as? Int != 0)
        #expect(result["afterStatus"] as? Int == 200)
        #expect(result["afterBody"] as? String == "hello")
        #expect(harness.counted.value < count / 2)
    }

    @Test("an idle connection is closed after the keep-alive timeout, with GOAWAY")
    func idleTimeout() throws {
        let harness = try HTTP2Harness { $0.keepAliveTimeout = 1 }
        let result = try HTTP2Client.run("idle", port: harness.port)
        #expect(result["body"] as? String == "hello")
        let goaway = try #require(result["goaway"] as? [String: Any])
        #expect(goaway["error"] as? Int == 0)
        #expect(goaway["last"] as? Int == 1)
        #expect((result["seconds"] as? Double ?? 99) < 10)
    }

    /// A server whose body and write progress timeouts are a second.
    static func oneSecondProgress(_ configuration: inout ServerConfiguration) {
        configuration.bodyProgressTimeout = 1
        configuration.writeProgressTimeout = 1
    }

    @Test("a request whose body stalls is ended at the body timeout, however many PINGs keep the connection busy")
    func stalledBodyWithPings() throws {
        let harness = try HTTP2Harness(configure: Self.oneSecondProgress)
        let result = try HTTP2Client.run("stall", port: harness.port, ["ping", "8"])
        #expect(result["closed"] as? Bool == true)
        #expect((result["seconds"] as? Double ?? 99) < 5, "closed after about a second, not kept by the PINGs")
        #expect(result["status"] as? Int == nil)
    }

    @Test("a body that trickles in a byte at a time is progress: it is read whole past the body timeout")
    func tricklingBodyIsProgress() throws {
        let harness = try HTTP2Harness(configure: Self.oneSecondProgress)
        let result = try HTTP2Client.run("stall", port: harness.port, ["trickle", "3"])
        #expect(result["status"] as? Int == 200)
        #expect(result["length"] as? Int == 1000)
        #expect((result["seconds"] as? Double ?? 0) >= 3)
    }

    @Test("draining sends GOAWAY; the request in flight still gets its answer")
    func goAwayOnDrain() throws {
        let harness = try HTTP2Harness()
        let client = try HTTP2Client.Running("drain", port: harness.port)
        client.waitFor("SENT")
        #expect(harness.eventually { harness.latch.waiting == 1 })
        let shutdown = TestThread { harness.server.shutdown() }
        #expect(client.waitFor("GOAWAY"))
        harness.latch.open()
        let result = try client.finish()
        shutdown.join()
        let goaway = try #require(result["goaway"] as? [String: Any])
        #expect(goaway["error"] as? Int == 0)
        #expect(goaway["last"] as? Int == 1)
        #expect(result["status"] as? Int == 200)
        #expect(result["body"] as? String == "released")
        #expect(result["ended"] as? Bool == true)
    }
}
