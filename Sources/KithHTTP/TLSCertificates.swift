import CLazyLibraries
import CSSL
import Glibc
import Synchronization

/// Why a certificate was not taken: the public message suits an operator's
/// terminal; `cause` is OpenSSL's own account, for the log.
public struct TLSCertificateError: Error, CustomStringConvertible {
    public let message: String
    public let cause: String

    init(_ message: String) {
        self.message = message
        cause = TLSCertificateError.drainOpenSSLErrors()
    }

    public var description: String { cause.isEmpty ? message : "\(message) (\(cause))" }

    /// OpenSSL's error queue is per thread and must be left empty, or the
    /// next `SSL_get_error` on this thread misreports.
    static func drainOpenSSLErrors() -> String {
        var parts: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }
}

/// The certificate the HTTPS listener presents, replaced whole while the
/// server runs. Each `install` builds a fresh `SSL_CTX`; a connection keeps
/// the one it shook hands with (OpenSSL counts references), so swapping is
/// one pointer under a lock and nobody waits on a handshake.
///
/// Until something is installed, ordinary handshakes fail with an alert (the
/// context has no certificate) while `acme-tls/1` challenge handshakes, which
/// carry their own certificate, still work: that is how the first
/// certificate is obtained.
public final class TLSCertificates: Sendable {
    /// Read-only facts about the certificate in use, for logs and renewal.
    public struct Facts: Sendable, Equatable {
        public var notAfter: Double?
        /// The serial number in hexadecimal, as `openssl x509 -serial` prints it.
        public var serial: String
    }

    private struct State {
        var context: SSLContext
        var facts: Facts?
        /// What `context` was built from, so a ticket-key rotation can rebuild it.
        var chainPEM: [UInt8] = []
        var keyPEM: [UInt8] = []
        var ticketKeys: [UInt8]
        var ticketKeysMade: Double
    }

    private let state: Mutex<State>
    private let challenges = ChallengeStore()
    /// Offered by ALPN besides `http/1.1`; the HTTP/2 layer sets it when it is on.
    let offersH2: Bool
    /// Session-ticket keys older than this are replaced (full handshakes
    /// follow for the clients holding tickets made with them).
    static let ticketKeyLifetime: Double = 12 * 3600

    public init(offeringH2: Bool = false) {
        offersH2 = offeringH2
        let keys = Self.newTicketKeys()
        let empty = SSLContext(challenges: challenges, offeringH2: offeringH2, ticketKeys: keys)
        state = Mutex(State(context: empty, ticketKeys: keys, ticketKeysMade: Self.wallClock()))
    }

    /// nil until a certificate is installed.
    public var current: Facts? { state.withLock { $0.facts } }

    /// Checks that the key belongs to the chain's first certificate, then
    /// serves the pair to every handshake from now on. Open connections keep theirs.
    public func install(chainPEM: [UInt8], keyPEM: [UInt8]) throws {
        let keys = state.withLock { $0.ticketKeys }
        let (context, facts) = try SSLContext.make(
            chainPEM: chainPEM, keyPEM: keyPEM, challenges: challenges, offeringH2: offersH2, ticketKeys: keys)
        state.withLock {
            $0.context = context
            $0.facts = facts
            $0.chainPEM = chainPEM
            $0.keyPEM = keyPEM
        }
    }

    /// A certificate shown only to clients whose ALPN offers `acme-tls/1`
    /// for `domain` (RFC 8737). Everyone else still sees the installed one.
    public func setChallenge(domain: String, chainPEM: [UInt8], keyPEM: [UInt8]) throws {
        let (context, _) = try SSLContext.make(chainPEM: chainPEM, keyPEM: keyPEM, challenges: nil, offeringH2: false, ticketKeys: nil)
        challenges.set(domain, context)
    }

    public func removeChallenge(domain: String) { challenges.set(domain, nil) }

    /// Replaces the session-ticket keys when they are old enough. Called on
    /// the reload timer; keys live only in memory, so a restart rotates them too.
    public func rotateTicketKeysIfDue(now: Double = TLSCertificates.wallClock()) {
        let due = state.withLock { now - $0.ticketKeysMade >= Self.ticketKeyLifetime }
        if due { try? rotateTicketKeys(now: now) }
    }

    func rotateTicketKeys(now: Double = TLSCertificates.wallClock()) throws {
        let keys = Self.newTicketKeys()
        let (chain, key) = state.withLock { ($0.chainPEM, $0.keyPEM) }
        let context: SSLContext
        if chain.isEmpty {
            context = SSLContext(challenges: challenges, offeringH2: offersH2, ticketKeys: keys)
        } else {
            context = try SSLContext.make(chainPEM: chain, keyPEM: key, challenges: challenges, offeringH2: offersH2, ticketKeys: keys).0
        }
        state.withLock {
            // An `install` that ran meanwhile wins; its context has the old keys until the next rotation.
            guard $0.chainPEM == chain else { return }
            $0.context = context
            $0.ticketKeys = keys
            $0.ticketKeysMade = now
        }
    }

    /// A server-side TLS session over an accepted socket.
    func session(on fd: Int32, logger: Logger) -> TLSSession? {
        let context = state.withLock { $0.context }
        return TLSSession(context: context, fd: fd, logger: logger)
    }

    public static func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func newTicketKeys() -> [UInt8] {
        var keys = [UInt8](repeating: 0, count: 80)
        _ = RAND_bytes(&keys, 80)
        return keys
    }
}

/// Challenge certificates by lower-cased domain. The client-hello callback
/// reads it on I/O threads; the ACME client writes it.
final class ChallengeStore: Sendable {
    private let contexts = Mutex<[String: SSLContext]>([:])

    func set(_ domain: String, _ context: SSLContext?) {
        contexts.withLock { $0[domain.lowercased()] = context }
    }

    func context(for domain: String) -> SSLContext? {
        contexts.withLock { $0[domain.lowercased()] }
    }
}

/// One `SSL_CTX`. Freed when the last Swift reference goes; OpenSSL keeps
/// its own count for the connections that still use it.
final class SSLContext: @unchecked Sendable {
    // The pointer is configured once, before the value is shared, and only
    // read afterwards (SSL_new is thread-safe on a configured context).
    let pointer: OpaquePointer
    let hasCertificate: Bool
    /// Kept alive for as long as the client-hello callback may look there.
    private let challenges: ChallengeStore?

    /// A context without a certificate.
    init(challenges: ChallengeStore?, offeringH2: Bool, ticketKeys: [UInt8]?) {
        pointer = SSL_CTX_new(TLS_server_method())!
        hasCertificate = false
        self.challenges = challenges
        configure(offeringH2: offeringH2, ticketKeys: ticketKeys, challengeOnly: challenges == nil)
    }

    private init(pointer: OpaquePointer, challenges: ChallengeStore?) {
        self.pointer = pointer
        hasCertificate = true
        self.challenges = challenges
    }

    deinit { SSL_CTX_free(pointer) }

    /// Mozilla's "intermediate" profile: TLS 1.2 and 1.3; for 1.2 only ECDHE
    /// with AES-GCM or ChaCha20 (no DHE, so no parameters to keep); the
    /// client picks among them (all are strong, and it knows whether it has
    /// AES hardware). TLS 1.3's own suites are OpenSSL's defaults, which are
    /// the profile's.
    private static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    private func configure(offeringH2: Bool, ticketKeys: [UInt8]?, challengeOnly: Bool) {
        _ = kith_ssl_set_tls_version_range(pointer, TLS1_2_VERSION, TLS1_3_VERSION)
        _ = SSL_CTX_set_cipher_list(pointer, Self.tls12Ciphers)
        kith_ssl_ctx_set_server_options(pointer)
        // Partial writes and a moving buffer let a send that would block be
        // retried from the connection's arrays wherever they now live;
        // released buffers keep an idle connection's TLS state to a few hundred bytes.
        _ = kith_ssl_ctx_set_mode(
            pointer, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS))
        _ = SSL_CTX_set_session_id_context(pointer, Array("kith".utf8), 4)
        if var keys = ticketKeys { _ = kith_ssl_ctx_set_ticket_keys(pointer, &keys, 80) }
        if challengeOnly {
            SSL_CTX_set_alpn_select_cb(pointer, alpnChallengeOnly, nil)
        } else {
            SSL_CTX_set_alpn_select_cb(pointer, alpnSelect, UnsafeMutableRawPointer(bitPattern: offeringH2 ? 3 : 1))
            if let challenges {
                SSL_CTX_set_client_hello_cb(pointer, clientHello, Unmanaged.passUnretained(challenges).toOpaque())
            }
        }
    }

    static func make(
        chainPEM: [UInt8], keyPEM: [UInt8], challenges: ChallengeStore?, offeringH2: Bool, ticketKeys: [UInt8]?
    ) throws -> (SSLContext, TLSCertificates.Facts) {
        _ = TLSCertificateError.drainOpenSSLErrors()
        let certificates = readCertificates(chainPEM)
        defer { certificates.forEach { X509_free($0) } }
        guard let leaf = certificates.first else { throw TLSCertificateError("The certificate file holds no PEM certificate.") }
        guard let key = readKey(keyPEM) else { throw TLSCertificateError("The key file holds no PEM private key.") }
        defer { EVP_PKEY_free(key) }
        let context = SSLContext(pointer: SSL_CTX_new(TLS_server_method())!, challenges: challenges)
        context.configure(offeringH2: offeringH2, ticketKeys: ticketKeys, challengeOnly: challenges == nil && ticketKeys == nil)
        guard SSL_CTX_use_certificate(context.pointer, leaf) == 1 else {
            throw TLSCertificateError("The certificate could not be used.")
        }
        for intermediate in certificates.dropFirst() where kith_ssl_ctx_add_chain_cert(context.pointer, intermediate) != 1 {
            throw TLSCertificateError("An intermediate certificate could not be used.")
        }
        guard SSL_CTX_use_PrivateKey(context.pointer, key) == 1, SSL_CTX_check_private_key(context.pointer) == 1 else {
            throw TLSCertificateError("The private key does not belong to the certificate.")
        }
        return (context, facts(of: leaf))
    }

    private static func readCertificates(_ pem: [UInt8]) -> [OpaquePointer] {
        pem.withUnsafeBytes { raw -> [OpaquePointer] in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return [] }
            defer { BIO_free(bio) }
            var result: [OpaquePointer] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) { result.append(certificate) }
            // The loop ends on "no more PEM", which OpenSSL queues as an error.
            _ = TLSCertificateError.drainOpenSSLErrors()
            return result
        }
    }

    private static func readKey(_ pem: [UInt8]) -> OpaquePointer? {
        pem.withUnsafeBytes { raw -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
    }

    private static func facts(of certificate: OpaquePointer) -> TLSCertificates.Facts {
        var notAfter: Double?
        if let time = X509_get0_notAfter(certificate) {
            var parts = tm()
            if ASN1_TIME_to_tm(time, &parts) == 1 { notAfter = Double(timegm(&parts)) }
        }
        var serial = ""
        if let number = ASN1_INTEGER_to_BN(X509_get_serialNumber(certificate), nil) {
            if let hex = BN_bn2hex(number) {
                serial = String(cString: hex)
                CRYPTO_free(hex, #file, #line)
            }
            BN_free(number)
        }
        return TLSCertificates.Facts(notAfter: notAfter, serial: serial)
    }
}

// MARK: - Callbacks (C function pointers: no captures; state comes through `arg`)

private let http11: [UInt8] = Array("http/1.1".utf8)
private let h2: [UInt8] = Array("h2".utf8)
private let acmeTLS1: [UInt8] = Array("acme-tls/1".utf8)

/// Finds `wanted` in a client's ALPN list (length-prefixed names) and
/// points `out` at it there: OpenSSL needs memory that outlives the call.
private func pick(
    _ wanted: [UInt8], from list: UnsafePointer<UInt8>, count: Int,
    _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<UInt8>?
) -> Bool {
    var index = 0
    while index < count {
        let length = Int(list[index])
        let start = index + 1
        guard start + length <= count else { return false }
        if length == wanted.count && (0..<length).allSatisfy({ list[start + $0] == wanted[$0] }) {
            out?.pointee = list + start
            outLength?.pointee = UInt8(length)
            return true
        }
        index = start + length
    }
    return false
}

/// The server's preference: `h2` when the HTTP/2 layer is on (bit 2 of
/// `arg`), then `http/1.1`. A client offering neither is refused.
private let alpnSelect: @convention(c) (
    OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
    UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
) -> Int32 = { _, out, outLength, list, count, arg in
    guard let list else { return SSL_TLSEXT_ERR_NOACK }
    let offersH2 = Int(bitPattern: arg) & 2 != 0
    // libnghttp2 is loaded by the first client that asks for h2; if it cannot
    // be, h2 is not offered and the connection goes on as HTTP/1.1.
    if offersH2 && pick(h2, from: list, count: Int(count), out, outLength) && kith_lazy_nghttp2_available() != 0 {
        return SSL_TLSEXT_ERR_OK
    }
    if pick(http11, from: list, count: Int(count), out, outLength) { return SSL_TLSEXT_ERR_OK }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}

private let alpnChallengeOnly: @convention(c) (
    OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
    UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
) -> Int32 = { _, out, outLength, list, count, _ in
    guard let list, pick(acmeTLS1, from: list, count: Int(count), out, outLength) else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    return SSL_TLSEXT_ERR_OK
}

/// Before anything is decided: a client offering `acme-tls/1` for a name
/// with a challenge waiting is moved onto the challenge's context, whose
/// certificate and ALPN answer it and nobody else.
private let clientHello: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutableRawPointer?) -> Int32 = {
    ssl, _, arg in
    guard let ssl, let arg else { return SSL_CLIENT_HELLO_SUCCESS }
    var data: UnsafePointer<UInt8>?
    var length = 0
    // 16: application_layer_protocol_negotiation; a two-byte list length first.
    guard SSL_client_hello_get0_ext(ssl, 16, &data, &length) == 1, let alpn = data, length > 2,
        pick(acmeTLS1, from: alpn + 2, count: length - 2, nil, nil)
    else { return SSL_CLIENT_HELLO_SUCCESS }
    // 0: server_name: list length (2), type (1, 0 = host name), name length (2), name.
    guard SSL_client_hello_get0_ext(ssl, 0, &data, &length) == 1, let names = data, length > 5, names[2] == 0 else {
        return SSL_CLIENT_HELLO_SUCCESS
    }
    let nameLength = Int(names[3]) << 8 | Int(names[4])
    guard 5 + nameLength <= length else { return SSL_CLIENT_HELLO_SUCCESS }
    let name = String(decoding: UnsafeBufferPointer(start: names + 5, count: nameLength), as: UTF8.self)
    let store = Unmanaged<ChallengeStore>.fromOpaque(arg).takeUnretainedValue()
    if let challenge = store.context(for: name) { _ = SSL_set_SSL_CTX(ssl, challenge.pointer) }
    return SSL_CLIENT_HELLO_SUCCESS
}
