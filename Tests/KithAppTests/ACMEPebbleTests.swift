import Foundation
import Glibc
import KithCrypto
import KithTestSupport
import Testing

@testable import KithApp

/// Kith's ACME client against pebble on 127.0.0.1: Kith starts first on
/// port 0, then pebble validates http-01 against that port.
@Suite(.enabled(if: Pebble.available, "needs pebble and pebble-challtestsrv (Debian package pebble) and openssl"))
struct ACMEPebbleTests {
    static let domain = "kith.example.com"

    /// Kith configured for pebble, with a clock the test moves.
    final class Setup {
        let pebble: Pebble
        let harness: AppHarness
        let installer = RecordingInstaller()
        let now = Locked<Int64>(Int64(time(nil)))
        var certificates: CertificateManager { harness.app.certificates }

        init(challengePort: ((AppHarness) -> Int)? = nil) throws {
            let pebble = try Pebble()
            let installer = installer
            let now = now
            harness = try AppHarness(configure: { configuration in
                configuration.clock = { now.value }
                configuration.acme.directoryURL = pebble.directoryURL
                configuration.acme.caFile = pebble.caFile
                configuration.acme.domains = [ACMEPebbleTests.domain]
                configuration.acme.email = "ops@example.com"
                // The test runs each check itself, once pebble is up.
                configuration.acme.renewsInBackground = false
            })
            self.pebble = pebble
            // As the server attaches its HTTPS port; nothing is stored yet, so nothing is installed here.
            harness.app.certificates.attach(installer)
            try pebble.start(httpPort: challengePort?(harness) ?? harness.port)
        }

        func stored() throws -> (chain: [UInt8], key: [UInt8]) { try Self.storedPair(certificates) }

        static func storedPair(_ certificates: CertificateManager) throws -> (chain: [UInt8], key: [UInt8]) {
            let store = certificates.store
            let chain = try #require(FileManager.default.contents(atPath: store.chainPath))
            let key = try #require(FileManager.default.contents(atPath: store.keyPath))
            return (Array(chain), Array(key))
        }
    }

    /// First issuance over http-01: the chain is stored with its key (the
    /// key owner-only), covers the domain, matches the key, verifies up to
    /// pebble's root, and went to the installer. A second look asks nothing.
    @Test func firstIssuance() throws {
        let setup = try Setup()
        let outcome = setup.certificates.check()
        guard case .issued(let serial, let notAfter) = outcome else {
            Issue.record("not issued: \(outcome); pebble said: \(setup.pebble.log)")
            return
        }
        let (chain, key) = try setup.stored()
        let leaf = try #require(CertificateFacts.chain(pem: chain).first)
        #expect(leaf.serial == serial && leaf.notAfter == notAfter)
        #expect(leaf.dnsNames == [Self.domain])
        #expect(leaf.issuer.contains("Pebble"))
        #expect(Certificates.keyMatches(chainPEM: chain, keyPEM: key))
        #expect(Certificates.verifies(chainPEM: chain, rootPEM: try setup.pebble.rootPEM()))
        #expect(!Certificates.verifies(chainPEM: chain, rootPEM: Array(try String(contentsOfFile: setup.pebble.caFile, encoding: .utf8).utf8)))
        var status = stat()
        #expect(stat(setup.certificates.store.keyPath, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(stat(setup.certificates.store.accountKeyPath, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(setup.installer.installed.value.map(\.chainPEM) == [chain])
        #expect(setup.certificates.check() == .current(notAfter: notAfter))
        #expect(setup.installer.installed.value.count == 1, "an unchanged certificate is not installed again")
        // The answer was taken down after validation; unknown tokens are 404.
        #expect(try setup.harness.get("/.well-known/acme-challenge/nothing-here").status == 404)
    }

    /// tls-alpn-01 end to end, with no recorder: pebble validates through
    /// Kith's own HTTPS port, which shows the challenge certificate only to
    /// its `acme-tls/1` handshake, and the issued certificate is then what
    /// the port serves to everyone — installed without a restart.
    @Test func tlsALPNThroughTheHTTPSPort() throws {
        let pebble = try Pebble()
        let harness = try AppHarness(configure: { configuration in
            configuration.acme.directoryURL = pebble.directoryURL
            configuration.acme.caFile = pebble.caFile
            configuration.acme.domains = [Self.domain]
            configuration.acme.challenge = .tlsALPN01
            configuration.acme.renewsInBackground = false
            configuration.httpsPort = 0
            configuration.domain = Self.domain
        })
        let served = try #require(harness.kith.certificates)
        #expect(served.current == nil, "no certificate before the first issuance")
        #expect((try? TestClient.tls(port: harness.httpsPort).send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")) == nil,
            "without a certificate an ordinary handshake fails")
        try pebble.start(httpPort: harness.port, tlsPort: harness.httpsPort)

        let outcome = harness.app.certificates.check()
        guard case .issued(let serial, _) = outcome else {
            Issue.record("not issued: \(outcome); pebble said: \(pebble.log)")
            return
        }
        /// `openssl`'s hexadecimal and ours may differ in case and leading zeros.
        func normal(_ hex: String) -> String { String(hex.lowercased().drop { $0 == "0" }) }
        #expect(normal(try #require(served.current).serial) == normal(serial))
        let client = try TestClient.tls(port: harness.httpsPort)
        #expect(normal(try #require(client.peerSerial)) == normal(serial), "a new handshake is shown the issued certificate")
        let (chain, _) = try Setup.storedPair(harness.app.certificates)
        #expect(Certificates.verifies(chainPEM: chain, rootPEM: try pebble.rootPEM()))
    }

    /// Far from expiry nothing happens; with the clock moved to 29 days
    /// before expiry the certificate is renewed (new serial, new key),
    /// stored over the old one and installed without a restart.
    @Test func renewalWhenCloseToExpiry() throws {
        let setup = try Setup()
        guard case .issued(let firstSerial, let notAfter) = setup.certificates.check() else {
            Issue.record("not issued; pebble said: \(setup.pebble.log)")
            return
        }
        let first = try setup.stored()
        setup.now.withLock { $0 = notAfter - 31 * 86400 }
        #expect(setup.certificates.check() == .current(notAfter: notAfter))
        setup.now.withLock { $0 = notAfter - 29 * 86400 }
        guard case .issued(let secondSerial, _) = setup.certificates.check() else {
            Issue.record("not renewed; pebble said: \(setup.pebble.log)")
            return
        }
        #expect(secondSerial != firstSerial)
        let second = try setup.stored()
        #expect(second.key != first.key && Certificates.keyMatches(chainPEM: second.chain, keyPEM: second.key))
        #expect(CertificateFacts.chain(pem: second.chain).first?.serial == secondSerial)
        #expect(setup.installer.installed.value.map(\.chainPEM) == [first.chain, second.chain])
    }

    /// With nothing listening where pebble validates, the failure names the
    /// challenge, the domain and what pebble saw; the next attempt waits out
    /// a backoff that doubles, and no certificate is stored or installed.
    @Test func failedChallengeIsReportedAndBackedOff() throws {
        let closed = try #require(try Pebble.freePorts(1).first)
        let setup = try Setup(challengePort: { _ in closed })
        let start = setup.now.value
        guard case .failed(let message, let retryAt) = setup.certificates.check() else {
            Issue.record("expected a failure")
            return
        }
        #expect(message.contains("http-01") && message.contains(Self.domain), "\(message)")
        #expect(message.lowercased().contains("connection refused"), "pebble's own detail: \(message)")
        #expect(retryAt == start + 300)
        #expect(setup.certificates.check() == .waiting(retryAt: retryAt))
        setup.now.withLock { $0 = retryAt }
        guard case .failed(_, let secondRetry) = setup.certificates.check() else {
            Issue.record("expected a second failure")
            return
        }
        #expect(secondRetry == retryAt + 600)
        #expect(FileManager.default.fileExists(atPath: setup.certificates.store.chainPath) == false)
        #expect(setup.installer.installed.value.isEmpty)
    }
}

/// The http-01 route and the `--acme-*` options, which need no CA.
@Suite struct ACMERouteAndOptionTests {
    /// The http-01 answer is plain text, uncached, cookie-free, and only
    /// for the token being validated.
    @Test func challengeRouteServesOnlyOpenTokens() throws {
        let harness = try AppHarness()
        harness.app.certificates.challenges.set(token: "abc_DEF-123", keyAuthorization: "abc_DEF-123.thumb")
        let response = try harness.get("/.well-known/acme-challenge/abc_DEF-123")
        #expect(response.status == 200 && response.text == "abc_DEF-123.thumb")
        #expect(response.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.header("Set-Cookie") == nil)
        #expect(try harness.get("/.well-known/acme-challenge/abc_DEF-124").status == 404)
        harness.app.certificates.challenges.remove(token: "abc_DEF-123")
        #expect(try harness.get("/.well-known/acme-challenge/abc_DEF-123").status == 404)
    }
}

extension ACMERouteAndOptionTests {
    /// Let's Encrypt production unless told; staging, a directory, a CA
    /// file, a contact and names from flags or the environment; nonsense
    /// is a usage error, never a half-configured client.
    @Test func options() throws {
        let (_, defaults) = try CommandLineParser.parse([], environment: [:])
        #expect(defaults.acme.directoryURL == ACMEOptions.letsEncrypt && defaults.acme.domains.isEmpty)
        let (command, config) = try CommandLineParser.parse(
            ["certificate", "--acme-staging", "--acme-domain", "Kith.Example.org,www.kith.example.org", "--acme-email", "a@b.example",
             "--acme-challenge", "tls-alpn-01"],
            environment: ["KITH_ACME_CA_FILE": "/etc/hostname"])
        #expect(command == .certificate)
        #expect(config.acme.directoryURL == ACMEOptions.letsEncryptStaging)
        #expect(config.acme.domains == ["kith.example.org", "www.kith.example.org"])
        #expect(config.acme.email == "a@b.example" && config.acme.caFile == "/etc/hostname" && config.acme.challenge == .tlsALPN01)
        for bad in [
            ["--acme-directory", "http://plain.example/dir"], ["--acme-domain", "a.example,DNS:b.example"], ["--acme-domain", "10.0.0.1"],
            ["--acme-domain", "*.example.org"], ["--acme-email", "nobody"], ["--acme-challenge", "dns-01"],
            ["--acme-ca-file", "/nonexistent/ca.pem"], ["certificate"],
        ] {
            #expect(throws: UsageError.self, "\(bad)") { try CommandLineParser.parse(bad, environment: [:]) }
        }
    }
}
