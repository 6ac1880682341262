import Foundation
import Glibc
import KithHTTP
import KithTestSupport
import Testing

/// The engine with HTTPS on: a few routes on a plain port and a TLS port,
/// certificates made by the `openssl` program at test time.
final class TLSHarness: @unchecked Sendable {
    let server: Server
    let directory: TemporaryDirectory
    let certificates: TLSCertificates
    let streams = Locked<[ResponseStream]>([])
    /// 1.5 MB of bytes that are not all the same, so a misplaced chunk shows.
    let bigFile: [UInt8]
    var plainPort: Int { server.port }
    var httpsPort: Int { server.httpsPort }

    init(installing serial: String? = "01", configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory("kith-tls")
        mkdir(directory.path + "/tmp", 0o700)
        bigFile = (0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        let bigPath = directory.path + "/big.bin"
        try Data(bigFile).write(to: URL(fileURLWithPath: bigPath))

        let router = Router<EngineHarness.Context>(makeContext: { EngineHarness.Context(request: $0) })
        let streams = self.streams
        router.on(Route(.get, "/hello")) { _ in .text("hello") }
        router.on(Route(.post, "/echo", body: .form)) { context in
            .text(context.request.form.fields.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
        }
        router.on(Route(.get, "/big")) { context in
            try Response.file(at: bigPath, contentType: "application/octet-stream", request: context.request.head)
        }
        router.on(Route(.get, "/.well-known/acme-challenge/:token")) { context in
            .text("key authorisation for " + (try context.request.parameter("token", as: String.self)))
        }
        router.onEventStream(Route(.get, "/events"), keepingIn: streams)

        certificates = TLSCertificates()
        if let serial { try Self.install(certificates, serial: serial, in: directory) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.workers = 4
        configuration.temporaryDirectory = directory.path + "/tmp"
        configuration.tls = TLSSettings(certificates: certificates, domain: "localhost", port: 0)
        configure(&configuration)
        server = Server(
            configuration: configuration, responder: TestResponder(router: router, admission: { _ in .proceed }),
            logger: Logger(enabled: false))
        try server.start()
    }

    deinit { server.shutdown() }

    static func install(_ certificates: TLSCertificates, serial: String, in directory: TemporaryDirectory) throws {
        let files = try TestCertificate.make(in: directory.path, name: "cert-\(serial)", serial: serial)
        try certificates.install(chainPEM: TestCertificate.bytes(files.chain), keyPEM: TestCertificate.bytes(files.key))
    }

    func tls(_ options: TLSClientOptions = TLSClientOptions()) throws -> TestClient { try TestClient.tls(port: httpsPort, options) }

    func get(_ client: TestClient, _ path: String, headers: String = "") throws -> TestResponse {
        try client.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(headers)\r\n")
        return try client.readResponse()
    }
}

@Suite("TLS", .enabled(if: Tools.openssl))
struct TLSTests {
    @Test("TLS 1.3 and 1.2 are accepted with ALPN http/1.1, and TLS 1.1 is refused by the server")
    func versions() throws {
        let harness = try TLSHarness()
        let modern = try harness.tls()
        #expect(modern.tlsVersion == "TLSv1.3")
        #expect(modern.alpn == "http/1.1")
        #expect(try harness.get(modern, "/hello").text == "hello")

        var options = TLSClientOptions()
        options.maximumVersion = TLSClientOptions.tls12
        let older = try harness.tls(options)
        #expect(older.tlsVersion == "TLSv1.2")
        #expect(older.alpn == "http/1.1")
        #expect(try harness.get(older, "/hello").text == "hello")

        options.minimumVersion = TLSClientOptions.tls11
        options.maximumVersion = TLSClientOptions.tls11
        let refusal = #expect(throws: TestError.self) { try harness.tls(options) }
        #expect(refusal?.description.contains("protocol version") == true, "\(refusal?.description ?? "")")
    }

    @Test("HTTPS answers with Strict-Transport-Security; the plain port redirects with 308 and passes only the ACME challenge path")
    func redirectAndHSTS() throws {
        let harness = try TLSHarness()
        let secure = try harness.get(try harness.tls(), "/hello")
        #expect(secure.status == 200)
        #expect(secure.header("Strict-Transport-Security") == "max-age=63072000")

        let plain = try TestClient(port: harness.plainPort)
        let redirected = try harness.get(plain, "/hello/there?x=1&y=%20")
        #expect(redirected.status == 308)
        #expect(redirected.header("Location") == "https://localhost:\(harness.httpsPort)/hello/there?x=1&y=%20")
        #expect(redirected.header("Strict-Transport-Security") == nil)

        // A form posted to the plain port is redirected too, its body drained, not read.
        let poster = try TestClient(port: harness.plainPort)
        try poster.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\na=1")
        let posted = try poster.readResponse()
        #expect(posted.status == 308)
        #expect(posted.header("Location") == "https://localhost:\(harness.httpsPort)/echo")

        let challenge = try harness.get(try TestClient(port: harness.plainPort), "/.well-known/acme-challenge/abc")
        #expect(challenge.status == 200)
        #expect(challenge.text == "key authorisation for abc")
        #expect(challenge.header("Strict-Transport-Security") == nil)
    }

    @Test("a form posted over TLS is read and answered; keep-alive carries several requests")
    func postOverTLS() throws {
        let harness = try TLSHarness()
        let client = try harness.tls()
        for round in 0..<3 {
            let body = "round=\(round)&text=" + String(repeating: "x", count: 3000)
            try client.send(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == body)
        }
    }

    @Test("a replaced certificate is shown to new connections while an open connection keeps working")
    func replacement() throws {
        let harness = try TLSHarness(installing: "0A")
        let open = try harness.tls()
        #expect(open.peerSerial == "0A")
        #expect(harness.certificates.current?.serial == "0A")

        try TLSHarness.install(harness.certificates, serial: "0B", in: harness.directory)
        #expect(harness.certificates.current?.serial == "0B")
        let fresh = try harness.tls()
        #expect(fresh.peerSerial == "0B")
        #expect(try harness.get(fresh, "/hello").text == "hello")
        #expect(try harness.get(open, "/hello").text == "hello")

        // A key that is not the certificate's is refused, and the one in use stays.
        let other = try TestCertificate.make(in: harness.directory.path, name: "other", serial: "0C")
        let mine = try TestCertificate.make(in: harness.directory.path, name: "mine", serial: "0D")
        #expect(throws: TLSCertificateError.self) {
            try harness.certificates.install(chainPEM: TestCertificate.bytes(mine.chain), keyPEM: TestCertificate.bytes(other.key))
        }
        #expect(throws: TLSCertificateError.self) {
            try harness.certificates.install(chainPEM: Array("not a certificate".utf8), keyPEM: TestCertificate.bytes(other.key))
        }
        #expect(try harness.tls().peerSerial == "0B")
    }

    @Test("a client that says nothing is closed at the header timeout, one that sends garbage at once; the server keeps serving")
    func silentAndGarbage() throws {
        let harness = try TLSHarness { $0.headerTimeout = 1 }
        let silent = try TestClient(port: harness.httpsPort)
        let garbage = try TestClient(port: harness.httpsPort)
        try garbage.send(Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8) + [UInt8](repeating: 0x16, count: 300))
        let started = Clock.now
        #expect(try garbage.waitForClose(timeout: 5))
        #expect(Clock.now - started < 1, "garbage should not wait for the header timeout")

        // A handshake begun and never finished is the same as silence.
        let stalled = try TestClient(port: harness.httpsPort)
        try stalled.send([0x16, 0x03, 0x01, 0x00, 0x40])
        #expect(try silent.waitForClose(timeout: 5))
        #expect(try stalled.waitForClose(timeout: 5))
        #expect(try harness.get(try harness.tls(), "/hello").text == "hello")
    }

    @Test("an event stream over TLS receives what is written, small events and one larger than a record")
    func streamOverTLS() throws {
        let harness = try TLSHarness()
        let client = try harness.tls()
        try client.send("GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        _ = try client.read(until: ": open\n\n", timeout: 5)
        let stream = try #require(harness.streams.withLock { $0.first })
        #expect(stream.write("data: one\n\n"))
        #expect(try client.read(until: "data: one\n\n", timeout: 5).contains("data: one"))
        let large = String(repeating: "z", count: 100_000)
        #expect(stream.write("data: \(large)\n\ndata: end\n\n"))
        let text = try client.read(until: "data: end\n\n", timeout: 10)
        #expect(text.contains("data: \(large)\n\n"))
    }

    @Test("a 1.5 MB file arrives byte-exact over TLS, whole and as a range")
    func largeFile() throws {
        let harness = try TLSHarness()
        let client = try harness.tls()
        let whole = try harness.get(client, "/big")
        #expect(whole.status == 200)
        #expect(whole.body.count == harness.bigFile.count)
        #expect(whole.body == harness.bigFile)

        let range = try harness.get(client, "/big", headers: "Range: bytes=70000-1234566\r\n")
        #expect(range.status == 206)
        #expect(range.body == Array(harness.bigFile[70000...1_234_566]))
        // The connection is still in step after both.
        #expect(try harness.get(client, "/hello").text == "hello")
    }

    @Test("200 TLS connections open at once are all answered")
    func manyConnections() throws {
        let harness = try TLSHarness()
        let clients = try (0..<200).map { _ in try harness.tls() }
        for client in clients { try client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n") }
        var answered = 0
        for client in clients where try client.readResponse().text == "hello" { answered += 1 }
        #expect(answered == 200)
        #expect(harness.server.openConnections >= 200)
    }

    @Test("a second connection resumes the first one's TLS 1.3 session")
    func resumption() throws {
        let harness = try TLSHarness()
        let first = try harness.tls()
        #expect(try harness.get(first, "/hello").text == "hello")
        #expect(!first.sessionReused)
        var options = TLSClientOptions()
        options.session = try #require(first.tlsSession)
        let second = try harness.tls(options)
        #expect(second.sessionReused)
        #expect(try harness.get(second, "/hello").text == "hello")
    }

    @Test("acme-tls/1 for a name with a challenge sees the challenge certificate; before any certificate, only challenges succeed")
    func challenge() throws {
        let harness = try TLSHarness(installing: nil)
        #expect(harness.certificates.current == nil)
        #expect(throws: TestError.self) { try harness.tls() }

        let files = try TestCertificate.make(in: harness.directory.path, name: "challenge", domain: "kith.example.org", serial: "AC")
        try harness.certificates.setChallenge(
            domain: "kith.example.org", chainPEM: TestCertificate.bytes(files.chain), keyPEM: TestCertificate.bytes(files.key))
        var options = TLSClientOptions()
        options.serverName = "kith.example.org"
        options.alpn = ["acme-tls/1"]
        let validator = try harness.tls(options)
        #expect(validator.peerSerial == "AC")
        #expect(validator.alpn == "acme-tls/1")

        // Once a certificate is installed, ordinary clients of that name see it, not the challenge.
        try TLSHarness.install(harness.certificates, serial: "0E", in: harness.directory)
        options.alpn = ["http/1.1"]
        let browser = try harness.tls(options)
        #expect(browser.peerSerial == "0E")
        #expect(try harness.get(browser, "/hello").text == "hello")

        harness.certificates.removeChallenge(domain: "kith.example.org")
        options.alpn = ["acme-tls/1"]
        #expect(throws: TestError.self) { try harness.tls(options) }
    }
}
