import Foundation
import Glibc
@testable import KithApp
import KithCrypto
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// A push service stand-in: an HTTPS server on 127.0.0.1 with a self-signed
/// certificate made by the `openssl` CLI, run by Python's `http.server` with
/// `ssl`. It records every request as a JSON line and answers 410 for paths
/// containing `/gone`, 201 otherwise.
final class PushReceiver {
    let directory: TemporaryDirectory
    let process = Process()
    private(set) var port = 0
    /// Python's own process: `python3` may be a launcher script whose child it is.
    private var serverPID: pid_t = 0
    var caFile: String { directory.path + "/cert.pem" }
    var logFile: String { directory.path + "/requests.jsonl" }

    struct Recorded {
        var path: String
        var headers: [String: String]
        var body: [UInt8]
    }

    static let script = #"""
        import base64, http.server, json, os, ssl, sys
        directory = sys.argv[1]
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with open(directory + "/requests.jsonl", "a") as log:
                    log.write(json.dumps({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                          "body": base64.b64encode(body).decode()}) + "\n")
                self.send_response(410 if "/gone" in self.path else 201)
                self.send_header("Content-Length", "0")
                self.end_headers()
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(directory + "/cert.pem", directory + "/key.pem")
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], os.getpid(), flush=True)
        server.serve_forever()
        """#

    init() throws {
        directory = try TemporaryDirectory("kith-push")
        let dir = directory.path
        let made = shell(
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost "
                + "-addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout '\(dir)/key.pem' -out '\(dir)/cert.pem' "
                + ">/dev/null 2>&1")
        guard made == 0 else { throw TestError("openssl could not make a certificate") }
        try Self.script.write(toFile: dir + "/receiver.py", atomically: true, encoding: .utf8)
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", dir + "/receiver.py", dir]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var banner = ""
        while !banner.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            banner += String(decoding: data, as: UTF8.self)
        }
        let numbers = banner.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard numbers.count == 2 else {
            process.terminate()
            throw TestError("the receiver did not start: \(banner)")
        }
        port = numbers[0]
        serverPID = pid_t(numbers[1])
    }

    /// SIGKILL, because a child of the test process inherits its blocked
    /// SIGTERM (the server masks it to read signals through a signalfd).
    func stop() {
        if serverPID > 0 { kill(serverPID, SIGKILL) }
        serverPID = 0
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        shell("rm -rf '\(directory.path)'")
    }

    deinit { stop() }

    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    func requests() throws -> [Recorded] {
        guard let text = try? String(contentsOfFile: logFile, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return Recorded(
                path: object["path"] as? String ?? "", headers: object["headers"] as? [String: String] ?? [:],
                body: Array(Data(base64Encoded: object["body"] as? String ?? "") ?? Data()))
        }
    }
}

/// What a browser holds for one subscription: its key pair and auth secret.
struct BrowserKeys {
    let key: P256Key
    let auth: [UInt8]

    init() throws {
        key = try P256Key.generate()
        auth = SecureRandom.bytes(16)
    }

    func fields(endpoint: String) -> [(String, String)] {
        [("endpoint", endpoint), ("p256dh", Base64URL.encode(key.publicKey)), ("auth", Base64URL.encode(auth))]
    }
}

/// Signs up and returns the session with its form token.
private func signedInSession(_ app: AppHarness, username: String) throws -> (WebSession, String) {
    let session = try signUp(app, username: username)
    return (session, try session.token(from: "/settings"))
}

private func userID(_ app: AppHarness, username: String) throws -> Int64 {
    try #require(try app.app.database.read {
        try $0.queryValue("SELECT id FROM users WHERE username = \(username)", as: Int64.self)
    })
}

private func subscriptionCount(_ app: AppHarness) throws -> Int64 {
    try app.app.database.read { try $0.queryValue("SELECT count(*) FROM push_subscriptions", as: Int64.self) ?? 0 }
}

@Suite("Web Push: subscriptions, delivery and the service worker", .serialized)
struct PushTests {
    @Test("a digest reaches a subscribed browser encrypted to its key, with VAPID and the push headers")
    func endToEndDelivery() throws {
        let receiver = try PushReceiver()
        defer { receiver.stop() }
        let app = try accountsHarness()
        app.app.push.useTestReceiver(caFile: receiver.caFile)
        let (session, token) = try signedInSession(app, username: "pusher")
        let browser = try BrowserKeys()
        let subscribed = try session.post(
            "/push/subscribe", browser.fields(endpoint: receiver.url("/push/device-1")), headers: ["X-CSRF-Token": token])
        #expect(subscribed.status == 204)

        app.app.push.deliver(
            to: try userID(app, username: "pusher"), title: "Idaho!", body: "Dad spotted Idaho \"at last\"", url: "/games/7")
        #expect(app.app.push.waitUntilIdle())

        let requests = try receiver.requests()
        try #require(requests.count == 1)
        let request = requests[0]
        #expect(request.path == "/push/device-1")
        #expect(request.headers["content-encoding"] == "aes128gcm")
        #expect(request.headers["content-type"] == "application/octet-stream")
        #expect(request.headers["ttl"] == "86400")
        #expect(request.headers["urgency"] == "normal")

        let plaintext = try WebPushCrypto.decrypt(request.body, receiver: browser.key, auth: browser.auth)
        let message = try #require(try JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: String])
        #expect(message == ["title": "Idaho!", "body": "Dad spotted Idaho \"at last\"", "url": "/games/7"])

        let authorization = try #require(request.headers["authorization"])
        let parts = try #require(authorization.wholeMatch(of: /vapid t=([^,]+), k=([A-Za-z0-9_-]+)/))
        let served = try app.get("/push/key").text
        #expect(String(parts.2) == served)
        let servedKey = try #require(Base64URL.decode(served))
        let claims = try #require(VAPID.verify(token: String(parts.1), publicKey: servedKey))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any])
        #expect(object["aud"] as? String == "https://127.0.0.1:\(receiver.port)")
        let exp = try #require((object["exp"] as? NSNumber)?.int64Value)
        let now = Int64(Date().timeIntervalSince1970)
        #expect(exp > now && exp <= now + 86_400)
    }

    @Test("a digest the sweeper delivers to the inbox also goes to the person's subscribed device")
    func digestsArePushed() throws {
        let receiver = try PushReceiver()
        defer { receiver.stop() }
        let clock = Locked<Int64>(1_800_000_000)
        let app = try accountsHarness(clock: clock)
        app.app.push.useTestReceiver(caFile: receiver.caFile)
        app.app.notifications.register(kind: "test.wave") { digest in
            "\(Notifications.listing(digest.actorNames)) waved in \(digest.scopeTitle)"
        }
        let (session, token) = try signedInSession(app, username: "waved_at")
        let browser = try BrowserKeys()
        #expect(try session.post("/push/subscribe", browser.fields(endpoint: receiver.url("/push/d")), headers: ["X-CSRF-Token": token]).status == 204)
        let recipient = try userID(app, username: "waved_at")
        try app.app.database.write { tx in
            try app.app.notifications.record(
                Notifications.Event(
                    kind: "test.wave", scope: "club:1", scopeTitle: "Book Club", actorID: nil, actorName: "Dad", subject: "",
                    link: "/clubs/1", recipients: [recipient]), in: tx)
        }
        clock.withLock { $0 += Notifications.quietPeriod + 1 }
        try app.app.notifications.sweep(now: clock.value)
        #expect(app.app.push.waitUntilIdle())
        let requests = try receiver.requests()
        try #require(requests.count == 1)
        let plaintext = try WebPushCrypto.decrypt(requests[0].body, receiver: browser.key, auth: browser.auth)
        let message = try #require(try JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: String])
        #expect(message["body"] == "Dad waved in Book Club")
        #expect(message["url"] == "/clubs/1")
    }

    @Test("a 410 from the push service deletes that subscription; others stay")
    func goneSubscriptionIsDeleted() throws {
        let receiver = try PushReceiver()
        defer { receiver.stop() }
        let app = try accountsHarness()
        app.app.push.useTestReceiver(caFile: receiver.caFile)
        let (session, token) = try signedInSession(app, username: "leaver")
        for path in ["/push/gone", "/push/kept"] {
            let response = try session.post(
                "/push/subscribe", try BrowserKeys().fields(endpoint: receiver.url(path)), headers: ["X-CSRF-Token": token])
            #expect(response.status == 204)
        }
        #expect(try subscriptionCount(app) == 2)
        app.app.push.deliver(to: try userID(app, username: "leaver"), title: "t", body: "b", url: "/")
        #expect(app.app.push.waitUntilIdle())
        #expect(try receiver.requests().map(\.path).sorted() == ["/push/gone", "/push/kept"])
        let left = try app.app.database.read { try $0.query("SELECT endpoint FROM push_subscriptions") }
            .map { try $0.get("endpoint", as: String.self) }
        #expect(left == [receiver.url("/push/kept")])
    }

    @Test("the HTTPS client refuses a certificate it does not trust, and a local address unless allowed")
    func clientVerifiesCertificates() throws {
        let receiver = try PushReceiver()
        defer { receiver.stop() }
        let untrusting = try HTTPSClient(allowLocalAddresses: true, timeoutSeconds: 5)
        #expect(throws: HTTPSClientError.self) { try untrusting.post(receiver.url("/x"), headers: [], body: [1]) }
        let guarded = try HTTPSClient(extraCAFile: receiver.caFile, timeoutSeconds: 5)
        #expect(throws: HTTPSClientError.self) { try guarded.post(receiver.url("/x"), headers: [], body: [1]) }
        #expect(try receiver.requests().isEmpty)
        let trusting = try HTTPSClient(extraCAFile: receiver.caFile, allowLocalAddresses: true, timeoutSeconds: 5)
        let response = try trusting.post(receiver.url("/x?y=1"), headers: [("X-Test", "1")], body: [1, 2, 3])
        #expect(response.status == 201)
        let recorded = try receiver.requests()
        #expect(recorded.map(\.path) == ["/x?y=1"])
        #expect(recorded.first?.body == [1, 2, 3])
        #expect(recorded.first?.headers["x-test"] == "1")
    }

    @Test("subscribing refuses non-https, local and malformed subscriptions, signed-out visitors and missing CSRF")
    func subscribeValidation() throws {
        let app = try accountsHarness()
        let (session, token) = try signedInSession(app, username: "careful")
        let browser = try BrowserKeys()
        let header = ["X-CSRF-Token": token]

        let cases: [(String, [(String, String)])] = [
            ("plain http", browser.fields(endpoint: "http://push.example.net/x")),
            ("not a URL", browser.fields(endpoint: "push.example.net/x")),
            ("loopback", browser.fields(endpoint: "https://127.0.0.1:9/x")),
            ("localhost", browser.fields(endpoint: "https://localhost/x")),
            ("private address", browser.fields(endpoint: "https://10.1.2.3/x")),
            ("bad key", [("endpoint", "https://push.example.net/x"), ("p256dh", "AAAA"), ("auth", Base64URL.encode(browser.auth))]),
            ("short auth", [("endpoint", "https://push.example.net/x"), ("p256dh", Base64URL.encode(browser.key.publicKey)), ("auth", "AAAA")]),
        ]
        for (name, fields) in cases {
            let response = try session.post("/push/subscribe", fields, headers: header)
            #expect(response.status == 400, "\(name)")
        }
        #expect(try session.post("/push/subscribe", browser.fields(endpoint: "http://x/")).status == 403, "no CSRF token")
        #expect(try subscriptionCount(app) == 0)

        let visitor = WebSession(port: app.port)
        let preSession = try visitor.token(from: "/signin")
        let signedOut = try visitor.post(
            "/push/subscribe", browser.fields(endpoint: "https://push.example.net/x"), headers: ["X-CSRF-Token": preSession])
        #expect(signedOut.status == 401)
        #expect(try subscriptionCount(app) == 0)

        // A public https endpoint is accepted, padded keys too, and unsubscribing removes it.
        var padded = browser.fields(endpoint: "https://push.example.net/x")
        padded[2].1 += "=="
        #expect(try session.post("/push/subscribe", padded, headers: header).status == 204)
        #expect(try subscriptionCount(app) == 1)
        let other = try signUp(app, username: "other")
        let otherToken = try other.token(from: "/settings")
        #expect(try other.post("/push/unsubscribe", [("endpoint", "https://push.example.net/x")], headers: ["X-CSRF-Token": otherToken]).status == 204)
        #expect(try subscriptionCount(app) == 1, "someone else's subscription stays")
        #expect(try session.post("/push/unsubscribe", [("endpoint", "https://push.example.net/x")], headers: header).status == 204)
        #expect(try subscriptionCount(app) == 0)
    }

    @Test("deleting an account deletes its subscriptions")
    func accountDeletionCascades() throws {
        let app = try accountsHarness()
        let (session, token) = try signedInSession(app, username: "goner")
        #expect(try session.post(
            "/push/subscribe", try BrowserKeys().fields(endpoint: "https://push.example.net/a"), headers: ["X-CSRF-Token": token]).status == 204)
        let id = try userID(app, username: "goner")
        try app.app.database.write { try $0.execute("DELETE FROM users WHERE id = \(id)") }
        #expect(try subscriptionCount(app) == 0)
    }

    @Test("/sw.js is served from the root as JavaScript, uncached, with scope /")
    func serviceWorkerHeaders() throws {
        let app = try accountsHarness()
        let response = try app.get("/sw.js")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/javascript") == true)
        #expect(response.header("Cache-Control") == "no-cache")
        #expect(response.header("Service-Worker-Allowed") == "/")
        #expect(response.text.contains("showNotification"))
        #expect(response.text.contains("notificationclick"))
    }

    @Test("/push/key is a P-256 public key, kept in vapid.key (0600) and the same after a restart")
    func keyStableAcrossRestart() throws {
        let directory = try TemporaryDirectory("kith-push-key")
        var configuration = KithConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory.path + "/data"
        configuration.logRequests = false

        func servedKey() throws -> String {
            let kith = KithServer(app: try makeApp(configuration, logger: Logger(enabled: false)))
            try kith.start()
            defer { kith.shutdown() }
            let client = try TestClient(port: kith.port)
            try client.send("GET /push/key HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("text/plain") == true)
            return response.text
        }
        let first = try servedKey()
        #expect(Base64URL.decode(first).map { try? P256Key(publicKey: $0) } != nil)
        var info = stat()
        #expect(stat(configuration.dataDirectory + "/vapid.key", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(info.st_size == 97)
        #expect(try servedKey() == first)
    }

    @Test("local addresses are recognised, public ones are not")
    func localAddresses() {
        for host in ["127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "localhost", "printer.local"] {
            #expect(PushAddress.isLocal(host: host), "\(host)")
        }
        for host in ["8.8.8.8", "172.32.0.1", "2001:4860:4860::8888", "fcm.googleapis.com"] {
            #expect(!PushAddress.isLocal(host: host), "\(host)")
        }
    }
}
