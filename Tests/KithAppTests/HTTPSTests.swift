import Foundation
import Glibc
import KithApp
import KithHTTP
import KithTestSupport
import Testing

/// Kith with `--https-port 0 --domain localhost`, its certificate in `DATA/certs/`.
func httpsHarness(prepare: (KithApp) -> Void = { _ in }) throws -> AppHarness {
    try AppHarness(configure: { config in
        config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
        config.httpsPort = 0
        config.domain = "localhost"
        let certs = config.dataDirectory + "/certs"
        _ = shell("mkdir -p '\(certs)'")
        do {
            try writeCertificate(in: certs, serial: "51")
        } catch {
            Issue.record("no test certificate: \(error)")
        }
    }, prepare: prepare)
}

/// Writes `fullchain.pem` and `privkey.pem` as a renewal would: complete files renamed into place.
private func writeCertificate(in certs: String, serial: String) throws {
    let made = try TestCertificate.make(in: certs, name: "new-\(serial)", serial: serial)
    guard rename(made.key, certs + "/privkey.pem") == 0, rename(made.chain, certs + "/fullchain.pem") == 0 else {
        throw TestError("could not move the certificate into place: errno \(errno)")
    }
}

extension AppHarness {
    var httpsPort: Int { kith.httpsPort }

    /// A browser that reached Kith over HTTPS.
    func secureSession() -> WebSession {
        let session = WebSession(port: port)
        let httpsPort = self.httpsPort
        session.connect = { try TestClient.tls(port: httpsPort) }
        session.origin = "https://localhost:\(httpsPort)"
        return session
    }
}

@Suite("HTTPS", .enabled(if: Tools.openssl))
struct HTTPSTests {
    @Test("over HTTPS the base URL is https://, cookies are Secure, and a form post must come from the https Origin")
    func secureSignUp() throws {
        let app = try httpsHarness()
        #expect(app.app.baseURL == "https://localhost:\(app.httpsPort)")
        let session = app.secureSession()
        let token = try session.token(from: "/signup")
        let fields = [("display_name", "Ada Lovelace"), ("username", "ada"), ("password", "correct horse"), ("time_zone", "Europe/London")]

        // The page's plain-HTTP address is not where Kith lives any more.
        let plainOrigin = try session.post("/signup", fields, csrf: token, headers: ["Origin": "http://127.0.0.1:\(app.port)"])
        #expect(plainOrigin.status == 403)
        #expect(session.sessionCookie == nil)

        let response = try session.post("/signup", fields, csrf: token)
        #expect(response.status == 200)
        #expect(response.header("Strict-Transport-Security") == "max-age=63072000")
        let cookie = try #require(response.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("kith_session=") }?.1)
        #expect(cookie.contains("Secure"))
        #expect(try session.get("/").status == 200)
    }

    @Test("the plain port redirects with 308 to HTTPS, keeping path and query, and hands ACME challenges to the app")
    func plainPort() throws {
        let app = try httpsHarness()
        let page = try app.get("/signin?next=%2Fsettings")
        #expect(page.status == 308)
        #expect(page.header("Location") == "https://localhost:\(app.httpsPort)/signin?next=%2Fsettings")
        #expect(page.header("Strict-Transport-Security") == nil)

        // Not redirected: the app answers (404 until a challenge is waiting), without HSTS.
        let challenge = try app.get("/.well-known/acme-challenge/some-token")
        #expect(challenge.status != 308)
        #expect(challenge.header("Location") == nil)
        #expect(challenge.header("Strict-Transport-Security") == nil)
    }

    @Test("app.css arrives over HTTPS byte for byte")
    func stylesheet() throws {
        let app = try httpsHarness()
        let session = app.secureSession()
        let page = try session.get("/signin")
        let match = try #require(page.text.firstMatch(of: /href="([^"]*app\.[0-9a-f]+\.css)"/))
        let css = try session.get(String(match.1), headers: ["Accept-Encoding": "identity"])
        #expect(css.status == 200)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let expected = try Data(contentsOf: root.appendingPathComponent("Public/css/app.css"))
        #expect(css.body.count == expected.count)
        #expect(css.body == Array(expected))
    }

    @Test("a certificate renewed on disk is served after a reload (SIGHUP); an open connection keeps working")
    func renewalOnDisk() throws {
        let app = try httpsHarness()
        let open = try TestClient.tls(port: app.httpsPort)
        #expect(open.peerSerial == "51")

        try writeCertificate(in: app.app.configuration.dataDirectory + "/certs", serial: "52")
        app.kith.reloadCertificates()
        #expect(try TestClient.tls(port: app.httpsPort).peerSerial == "52")
        try open.send("GET /signin HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try open.readResponse().status == 200)

        // A broken renewal is refused and the certificate in use stays.
        let certs = app.app.configuration.dataDirectory + "/certs"
        try "not a certificate".write(toFile: certs + "/fullchain.pem.new", atomically: false, encoding: .utf8)
        #expect(rename(certs + "/fullchain.pem.new", certs + "/fullchain.pem") == 0)
        app.kith.reloadCertificates()
        #expect(try TestClient.tls(port: app.httpsPort).peerSerial == "52")
    }

    @Test("a publish reaches every live stream open over HTTPS, through the loop's fan-out")
    func liveOverTLS() throws {
        let app = try httpsHarness { $0.liveTopics.register(kind: "open") { _, _ in true } }
        let streams = try (0..<20).map { _ in try TestClient.tls(port: app.httpsPort) }
        for stream in streams {
            try stream.send("GET /live?topics=open:1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let head = try stream.read(until: "retry: 2000", timeout: 10)
            #expect(head.contains("Strict-Transport-Security: max-age=63072000"))
        }
        app.app.live.publish(topic: "open:1", fragments: ["over-tls"])
        for stream in streams {
            #expect(try stream.read(until: "over-tls", timeout: 10).contains("event: invalidate"))
        }
    }

    @Test("--https-port, --domain, --cert and --key (and KITH_*) are read and checked")
    func options() throws {
        let (_, config) = try CommandLineParser.parse(
            ["serve", "--https-port", "443", "--domain", "Kith.Example.org", "--cert", "/etc/c.pem", "--key", "/etc/k.pem"], environment: [:])
        #expect(config.httpsPort == 443)
        #expect(config.domain == "kith.example.org")
        #expect(config.effectiveBaseURL == "https://kith.example.org")
        #expect(config.certificatePaths == ("/etc/c.pem", "/etc/k.pem"))

        let (_, fromEnvironment) = try CommandLineParser.parse(
            ["--data", "/srv/kith"], environment: ["KITH_HTTPS_PORT": "8443", "KITH_DOMAIN": "kith.example.org"])
        #expect(fromEnvironment.effectiveBaseURL == "https://kith.example.org:8443")
        #expect(fromEnvironment.certificatePaths == ("/srv/kith/certs/fullchain.pem", "/srv/kith/certs/privkey.pem"))

        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--https-port", "443"], environment: [:]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--domain", "kith.example.org"], environment: [:]) }
        #expect(throws: UsageError.self) {
            try CommandLineParser.parse(["--https-port", "443", "--domain", "kith.example.org", "--cert", "c.pem"], environment: [:])
        }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--https-port", "443", "--domain", "a b"], environment: [:]) }
    }
}
