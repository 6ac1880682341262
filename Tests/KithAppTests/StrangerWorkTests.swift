import Foundation
import Glibc
@testable import KithApp
import KithHTTP
import KithTestSupport
import Testing

/// No work for strangers: an upload is judged from its head, before the
/// server reads, stores or holds a byte of its body; a download is sent
/// from storage, never copied; the accept loop stays calm without
/// descriptors.
@Suite("No work for strangers", .serialized)
struct StrangerWorkTests {
    /// The resident memory of this process, where the test server runs.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    /// Sends a head, then up to `bytes` of body until the server stops
    /// taking it; returns the answer.
    static func flood(port: Int, path: String, head: String, cookies: String = "", bytes: Int) throws -> TestResponse {
        let client = try TestClient(port: port)
        let cookieLine = cookies.isEmpty ? "" : "Cookie: \(cookies)\r\n"
        try client.send("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n\(cookieLine)\(head)\r\n\r\n")
        let chunk = [UInt8](repeating: 0x41, count: 256 * 1024)
        var sent = 0
        let chunked = head.contains("chunked")
        while sent < bytes {
            let frame = chunked ? Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8) : chunk
            guard client.trySend(frame) else { break }
            sent += chunk.count
        }
        return try client.readResponse(timeout: 10)
    }

    @Test("large bodies from signed-out people, strangers and forged forms, sent to every upload route, are refused from the head: memory stays flat and nothing reaches the disk")
    func uploadsJudgedFromTheHead() throws {
        let app = try OccasionMediaTests.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let challenge = try party.addChallenge("Sing", points: 10)
        let routes = ["\(party.base)/gift/photos", "\(party.base)/gift/video", "\(party.base)/gift/voice",
                      "\(party.base)/challenges/\(challenge)/complete"]
        let member = party.contributors[0]
        func cookies(_ session: WebSession) -> String { session.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        // 20 MB is within every upload route's limit: only who sends it decides.
        let multipart = "Content-Type: \(MultipartForm.contentType)\r\nContent-Length: 20000000"
        let before = Self.residentBytes()
        for path in routes {
            // Not multipart: refused before a byte is read, whoever sends it.
            #expect(try Self.flood(port: app.port, path: path, head: "Content-Type: application/octet-stream\r\nContent-Length: 600000000", bytes: 19 << 20).status == 415)
            #expect(try Self.flood(port: app.port, path: path, head: "Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked", bytes: 19 << 20).status == 415)
            // Multipart from someone signed out, from a stranger, and a
            // member's form that does not open with its token.
            #expect(try Self.flood(port: app.port, path: path, head: multipart, bytes: 19 << 20).status == 303)
            #expect(try Self.flood(port: app.port, path: path, head: multipart, cookies: cookies(party.stranger), bytes: 19 << 20).status == 404)
            var forged = MultipartForm()
            forged.file("photo", filename: "a.jpg", type: "image/jpeg", [UInt8](repeating: 0xFF, count: 8 << 20))
            let refused = try member.post(path, rawBody: forged.body, headers: ["Content-Type": MultipartForm.contentType])
            #expect(refused.status == 403, "\(path)")
            #expect(refused.text.contains("This form has expired"))
        }
        let grown = Self.residentBytes() - before
        #expect(grown < 48 << 20, "resident memory grew by \(grown >> 20) MiB while 300 MB were thrown at the upload routes")
        #expect(OccasionMediaTests.temporaryFiles(app).isEmpty)
        #expect(filesBelow(OccasionMediaTests.mediaDirectory(app)).isEmpty)
        #expect(app.kith.server.uploadBytesInUse == 0)

        // The same member, with the token first as the page's form sends it, is let in.
        #expect(try party.upload(member, "photos", files: [("a.jpg", "image/jpeg", Fixture.jpegWithLocation())]).status == 303)
    }

    @Test("keepsake downloads are sent from storage: a dozen left unread hold no disk, and a finished one is a sound zip with the files' own bytes")
    func keepsakeStreamed() throws {
        let app = try OccasionMediaTests.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let friend = party.contributors[0]
        let photo = Fixture.jpegWithLocation()
        #expect(try party.upload(friend, "photos", files: [("me.jpg", "image/jpeg", photo)]).status == 303)
        let gift = try party.giftOf("friend_1")
        #expect(try party.post(friend, "\(party.base)/gift/submit", [], from: "\(party.base)/gift").status == 303)
        try party.price(gift, cost: 10)
        let challenge = try party.addChallenge("Sing", points: 10)
        #expect(try party.complete(challenge).status == 303)
        #expect(try party.unlock(gift).status == 303)
        let stored = try #require(filesBelow(OccasionMediaTests.mediaDirectory(app)).first)
        let storedBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: OccasionMediaTests.mediaDirectory(app) + "/" + stored)))

        // Twelve downloads asked for and never read.
        let cookie = party.host.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        var unread: [TestClient] = []
        for _ in 0..<12 {
            let client = try TestClient(port: app.port)
            try client.send("GET \(party.base)/keepsake HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\n\r\n")
            unread.append(client)
        }
        usleep(500_000)
        #expect(OccasionMediaTests.temporaryFiles(app).isEmpty, "no copy of the archive on disk")

        let zip = try party.host.get("\(party.base)/keepsake")
        #expect(zip.status == 200)
        #expect(zip.header("Content-Type") == "application/zip")
        #expect(Int(zip.header("Content-Length") ?? "") == zip.body.count)
        let folder = try TemporaryDirectory("kith-keepsake-check")
        try Data(zip.body).write(to: URL(fileURLWithPath: folder.path + "/k.zip"))
        let check = Process()
        let output = Pipe()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            media = [n for n in z.namelist() if n.startswith('media/')]
            sys.stdout.buffer.write(z.read(media[0]))
            """, folder.path + "/k.zip"]
        check.standardOutput = output
        try check.run()
        let inside = output.fileHandleForReading.readDataToEndOfFile()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0)
        #expect([UInt8](inside) == storedBytes, "the archive holds the stored file byte for byte")
        unread.removeAll()
    }

    @Test(
        "with few file descriptors, a crowd of idle connections neither spins the accept loop nor stops the server answering",
        .enabled(if: Tools.prlimit, "needs prlimit (util-linux); `make test` installs it"))
    func descriptorExhaustion() throws {
        let data = try TemporaryDirectory("kith-nofile")
        let kith = try KithProcess(
            wrapper: [Tools.path("prlimit")!, "--nofile=128:128"],
            arguments: ["serve", "--port", "0", "--data", data.path, "--quiet"])
        var idle: [TestClient] = []
        for _ in 0..<200 {
            guard let client = try? TestClient(port: kith.port) else { break }
            idle.append(client)
        }
        usleep(300_000)
        let before = kith.cpuSeconds()
        usleep(2_000_000)
        let used = kith.cpuSeconds() - before
        #expect(used < 0.5, "the server used \(used) s of CPU in 2 s while idle connections waited")
        idle.removeAll()
        // With the crowd gone, it answers again.
        var healthy = false
        let deadline = Clock.now + 10
        while !healthy && Clock.now < deadline {
            if let client = try? TestClient(port: kith.port), client.trySend(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)),
                let response = try? client.readResponse(timeout: 1)
            {
                healthy = response.status == 200
            }
            if !healthy { usleep(100_000) }
        }
        #expect(healthy)
    }
}

@Suite("Throttles behind a trusted proxy")
struct TrustedProxyThrottleTests {
    static func harness() throws -> AppHarness {
        try AppHarness(configure: { config in
            config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
            config.trustedProxies = [AddressBlock("127.0.0.1")!]
        })
    }

    static func browser(_ app: AppHarness, at address: String) -> WebSession {
        let session = WebSession(port: app.port)
        session.forwardedFor = address
        return session
    }

    @Test("behind the proxy, one client's failed sign-ins hold back that client only: a correct password from anyone else gets in")
    func signInsPerClient() throws {
        let app = try Self.harness()
        _ = try signUp(app, username: "rightful")
        let attacker = Self.browser(app, at: "198.51.100.1")
        for index in 0..<AccountRoutes.failuresPerAddress {
            #expect(try signIn(attacker, username: "made_up_\(index)", password: "a wrong guess").status == 401)
        }
        #expect(try signIn(Self.browser(app, at: "198.51.100.1"), username: "rightful", password: "correct horse").status == 429,
                "the client that failed is judged by its own address")
        #expect(try signIn(Self.browser(app, at: "203.0.113.7"), username: "rightful", password: "correct horse").status == 303,
                "a new device elsewhere, through the same proxy, is not")
    }

    @Test("behind the proxy, one client's unknown codes hold back that client only, and a working code opens for everyone")
    func invitesPerClient() throws {
        let app = try TestClubs.harness(configure: { $0.trustedProxies = [AddressBlock("127.0.0.1")!] })
        let (_, code) = try TestClubs.make(app)
        let guesser = Self.browser(app, at: "198.51.100.1")
        for index in 0..<InviteRoutes.failuresPerAddress {
            #expect(try guesser.get("/join/ZZZZZ\(index % 8 + 2)").status == 404)
        }
        #expect(try guesser.get("/join/ZZZZZZ").status == 429)
        #expect(try guesser.get("/join/\(code)").status == 200, "a working code still opens for the guesser")
        let neighbour = Self.browser(app, at: "203.0.113.7")
        #expect(try neighbour.get("/join/ZZZZZZ").status == 404, "someone else behind the proxy is not held back")
        #expect(try neighbour.get("/join/\(code)").status == 200)
    }
}
