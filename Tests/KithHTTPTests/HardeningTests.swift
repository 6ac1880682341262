import Foundation
import Glibc
import KithHTTP
import KithTestSupport
import Testing

/// What the engine does for strangers before it does any work for them:
/// decide from the head, hold little in memory, share the server fairly.
@Suite("The engine against clients who take more than their share")
struct HardeningTests {
    static let boundary = "----kithboundary"
    static let multipart = "multipart/form-data; boundary=\(boundary)"

    static func part(_ name: String, _ value: String) -> String {
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
    }

    static func filePart(_ name: String, bytes count: Int) -> [UInt8] {
        Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"f.bin\"\r\n\r\n".utf8)
            + [UInt8](repeating: 0x61, count: count) + Array("\r\n".utf8)
    }

    static let closing = Array("--\(boundary)--\r\n".utf8)

    /// Only requests that carry `X-Member: yes` may send a body.
    static func membersOnly(_ request: Request) -> Admission {
        request.headers["X-Member"] == "yes" ? .proceed : .refuse(HTTPError(.notFound, "Not here."))
    }

    @Test("a refused head is answered before its body is read, and nothing reaches the disk")
    func refusedFromTheHead() throws {
        let harness = try EngineHarness(admit: Self.membersOnly)
        let client = try harness.client()
        // Promise 10 MB (within the route's limit) and send none of it: the
        // answer must not wait for it.
        try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: \(Self.multipart)\r\nContent-Length: 10000000\r\n\r\n")
        let response = try client.readResponse(timeout: 5)
        #expect(response.status == 404)
        #expect(response.header("Connection") == "close")
        #expect(harness.temporaryFiles().isEmpty)
        #expect(harness.uploads.value.isEmpty)

        // `Expect: 100-continue` is answered with the refusal, never with 100.
        let polite = try harness.client()
        try polite.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: \(Self.multipart)\r\nContent-Length: 9000\r\nExpect: 100-continue\r\n\r\n")
        #expect(try polite.readResponse(timeout: 5).status == 404)

        let member = try harness.client()
        var body = Array(Self.part("title", "Hi").utf8) + Self.filePart("photo", bytes: 10) + Self.closing
        try member.send("POST /upload HTTP/1.1\r\nHost: t\r\nX-Member: yes\r\nContent-Type: \(Self.multipart)\r\nContent-Length: \(body.count)\r\n\r\n")
        try member.send(body)
        #expect(try member.readResponse().text == "Hi f.bin:10:true")
        body = []
    }

    @Test("an upload route answers 415 to anything but multipart, and any body held in memory stops at its small limit")
    func uploadsOnlyAsMultipart() throws {
        let harness = try EngineHarness()
        for head in [
            "Content-Type: application/octet-stream\r\nContent-Length: 400000000",
            "Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked",
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10",
        ] {
            let client = try harness.client()
            try client.send("POST /upload HTTP/1.1\r\nHost: t\r\n\(head)\r\n\r\n")
            #expect(try client.readResponse(timeout: 5).status == 415, "\(head)")
        }

        // An ordinary form holds 64 KiB at most: a larger length is refused
        // from the head, a chunked body as it passes the limit.
        let long = try harness.client()
        try long.send("POST /form HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 70000\r\n\r\n")
        #expect(try long.readResponse(timeout: 5).status == 413)

        let chunked = try harness.client()
        try chunked.send("POST /form HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = "a=" + String(repeating: "b", count: 16 * 1024 - 2)
        var refused = false
        for _ in 0..<8 where !refused {
            refused = !chunked.trySend(Array("\(String(chunk.utf8.count, radix: 16))\r\n\(chunk)\r\n".utf8))
        }
        #expect(try chunked.readResponse(timeout: 5).status == 413)

        let fine = try harness.client()
        try fine.send("POST /form HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&b=2")
        #expect(try fine.readResponse().text == "fields: 2")
    }

    @Test("a multipart form must open with the field the application asked for, before any file is written")
    func firstFieldBeforeFiles() throws {
        let token = "s3cret-token"
        let harness = try EngineHarness(admit: { _ in
            .proceed(firstField: RequiredField("_csrf", refusal: HTTPError(.forbidden, "This form has expired.")) { $0 == token })
        })
        func post(_ body: [UInt8]) throws -> TestResponse {
            let client = try harness.client()
            try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: \(Self.multipart)\r\nContent-Length: \(body.count)\r\n\r\n")
            _ = client.trySend(body)
            return try client.readResponse(timeout: 5)
        }
        let big = 3 << 20
        #expect(try post(Self.filePart("photo", bytes: big) + Self.closing).status == 403, "a file first")
        #expect(try post(Array(Self.part("title", "x").utf8) + Self.filePart("photo", bytes: big) + Self.closing).status == 403, "another field first")
        #expect(try post(Array(Self.part("_csrf", "guess").utf8) + Self.filePart("photo", bytes: big) + Self.closing).status == 403, "a wrong token")
        #expect(try post(Self.closing).status == 403, "no field at all")
        #expect(harness.uploads.value.isEmpty)
        #expect(harness.temporaryFiles().isEmpty)
        #expect(harness.server.uploadBytesInUse == 0)

        let accepted = try post(Array(Self.part("_csrf", token).utf8) + Array(Self.part("title", "ok").utf8) + Self.filePart("photo", bytes: 5) + Self.closing)
        #expect(accepted.text == "ok f.bin:5:true")
    }

    @Test("upload space is shared: one address past its share is refused while it uploads, another still uploads, and the space comes back")
    func uploadSpace() throws {
        let harness = try EngineHarness(configure: {
            $0.uploadSpacePerAddressBytes = 1 << 20
            $0.uploadSpaceBytes = 3 << 20
        })
        func upload(from source: String, bytes: Int) throws -> TestResponse {
            let client = try TestClient(port: harness.port, from: source)
            let body = Self.filePart("photo", bytes: bytes) + Self.closing
            try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: \(Self.multipart)\r\nContent-Length: \(body.count)\r\n\r\n")
            _ = client.trySend(body)
            return try client.readResponse(timeout: 5)
        }
        let greedy = try upload(from: "127.0.0.1", bytes: 2 << 20)
        #expect(greedy.status == 429)
        #expect(greedy.text.contains("uploads on their way"))
        #expect(harness.server.uploadBytesInUse == 0)
        #expect(harness.temporaryFiles().isEmpty)
        #expect(try upload(from: "127.0.0.2", bytes: 512 << 10).status == 200)
        #expect(try upload(from: "127.0.0.1", bytes: 512 << 10).status == 200)
        #expect(harness.server.uploadBytesInUse == 0)
    }

    @Test("one address holds at most its share of connections; other addresses still get in, and a closed one frees its slot")
    func connectionsPerAddress() throws {
        let harness = try EngineHarness(configure: { $0.maxConnectionsPerAddress = 3 })
        var held = try (0..<3).map { _ in try TestClient(port: harness.port, from: "127.0.0.1") }
        // The slot is taken at accept, before a byte is sent.
        try held[0].send(get("/hello"))
        #expect(try held[0].readResponse().status == 200)
        let extra = try TestClient(port: harness.port, from: "127.0.0.1")
        #expect(try extra.waitForClose(timeout: 5), "the fourth connection from one address is closed unanswered")

        let neighbour = try TestClient(port: harness.port, from: "127.0.0.2")
        try neighbour.send(get("/hello"))
        #expect(try neighbour.readResponse().status == 200)

        held.removeLast()
        // The server notices the close on its next look at the socket.
        var admitted = false
        let deadline = Clock.now + 5
        while !admitted && Clock.now < deadline {
            let again = try TestClient(port: harness.port, from: "127.0.0.1")
            if again.trySend(Array(get("/hello").utf8)), let response = try? again.readResponse(timeout: 1) {
                admitted = response.status == 200
            }
            if !admitted { usleep(50_000) }
        }
        #expect(admitted)
    }

    @Test("the client address comes from a trusted proxy's forwarding headers, and from nobody else's")
    func trustedProxy() throws {
        func whoami(_ harness: EngineHarness, _ headers: String) throws -> String {
            let client = try harness.client()
            try client.send("GET /whoami HTTP/1.1\r\nHost: t\r\n\(headers)\r\n")
            return try client.readResponse().text
        }
        let direct = try EngineHarness()
        #expect(try whoami(direct, "X-Forwarded-For: 203.0.113.9\r\n") == "127.0.0.1", "an untrusted peer's header is ignored")

        let proxied = try EngineHarness(configure: { $0.trustedProxies = [AddressBlock("127.0.0.0/8")!] })
        #expect(try whoami(proxied, "X-Forwarded-For: 203.0.113.9\r\n") == "203.0.113.9")
        // A client may write anything on the left; the proxy appends what it saw.
        #expect(try whoami(proxied, "X-Forwarded-For: 1.1.1.1, 203.0.113.9\r\n") == "203.0.113.9")
        #expect(try whoami(proxied, "X-Forwarded-For: 203.0.113.9, 127.0.0.5\r\n") == "203.0.113.9", "trusted hops are skipped")
        #expect(try whoami(proxied, "X-Forwarded-For: 198.51.100.1\r\nX-Forwarded-For: 203.0.113.9\r\n") == "203.0.113.9")
        #expect(try whoami(proxied, "Forwarded: for=\"[2001:db8::1]:4711\";proto=https\r\n") == "2001:db8::1")
        #expect(try whoami(proxied, "Forwarded: for=198.51.100.7:80\r\n") == "198.51.100.7")
        #expect(try whoami(proxied, "X-Forwarded-For: not-an-address\r\n") == "127.0.0.1", "garbage names nobody")
        #expect(try whoami(proxied, "") == "127.0.0.1")
    }

    @Test("address blocks match IPv4, IPv6 and IPv4-mapped addresses by prefix")
    func addressBlocks() throws {
        let v4 = try #require(AddressBlock("10.1.0.0/16"))
        #expect(v4.contains("10.1.200.3"))
        #expect(v4.contains("::ffff:10.1.0.9"))
        #expect(!v4.contains("10.2.0.1"))
        let one = try #require(AddressBlock("192.0.2.7"))
        #expect(one.contains("192.0.2.7") && !one.contains("192.0.2.8"))
        let v6 = try #require(AddressBlock("2001:db8::/32"))
        #expect(v6.contains("2001:db8:1::5"))
        #expect(!v6.contains("2001:db9::5"))
        #expect(!v6.contains("10.0.0.1"))
        #expect(try #require(AddressBlock("0.0.0.0/0")).contains("8.8.8.8"))
        for bad in ["", "10.0.0.0/33", "::/129", "nope", "10.0.0/8", "1.2.3.4/x"] {
            #expect(AddressBlock(bad) == nil, "\(bad)")
        }
    }

    @Test("requests whose clients hung up while they waited for a worker never run")
    func abandonedWorkIsDropped() throws {
        let harness = try EngineHarness(configure: { $0.workers = 1 })
        let blocker = try harness.client()
        try blocker.send(get("/block"))
        while harness.latch.waiting == 0 { usleep(1000) }
        // Five posts queue behind the blocked worker; their senders leave.
        for _ in 0..<5 {
            let client = try harness.client()
            try client.send("POST /count HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        }
        usleep(300_000)
        harness.latch.open()
        #expect(try blocker.readResponse().text == "released")
        let next = try harness.client()
        try next.send("POST /count HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        #expect(try next.readResponse().text == "counted")
        #expect(harness.counted.value == 1, "only the request whose client stayed was handled")
    }
}
