import CSSL
import Foundation
import Glibc

/// How a test's TLS client introduces itself. It verifies nothing: tests
/// look at the certificate they were shown (`peerSerial`) instead.
public struct TLSClientOptions {
    public var serverName = "localhost"
    public var alpn = ["http/1.1"]
    public var minimumVersion = TLS1_2_VERSION
    public var maximumVersion = TLS1_3_VERSION
    /// A session from an earlier connection, to resume.
    public var session: TLSClientSession?

    public init() {}

    public static let tls11 = TLS1_1_VERSION
    public static let tls12 = TLS1_2_VERSION
    public static let tls13 = TLS1_3_VERSION
}

/// A TLS session kept from one connection for the next.
public final class TLSClientSession: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { SSL_SESSION_free(pointer) }
}

/// One client context for every test connection: its settings come per connection.
// Configured once, then only read: SSL_new is thread-safe on a configured context.
nonisolated(unsafe) private let clientContext: OpaquePointer = {
    let context = SSL_CTX_new(TLS_client_method())!
    // Old versions must be refused by the server, not by this client:
    // security level 0 lets it offer TLS 1.1 when a test asks.
    _ = SSL_CTX_set_cipher_list(context, "DEFAULT:@SECLEVEL=0")
    SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
    return context
}()

extension TestClient {
    /// Connects and completes a TLS handshake, or throws with OpenSSL's reason.
    public static func tls(port: Int, _ options: TLSClientOptions = TLSClientOptions()) throws -> TestClient {
        let client = try TestClient(port: port)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let ssl = SSL_new(clientContext) else { throw TestError("SSL_new failed") }
        client.ssl = ssl
        SSL_set_fd(ssl, client.fd)
        _ = kith_ssl_set_sni(ssl, options.serverName)
        _ = kith_ssl_set_version_range(ssl, options.minimumVersion, options.maximumVersion)
        var protocols: [UInt8] = []
        for name in options.alpn { protocols += [UInt8(name.utf8.count)] + Array(name.utf8) }
        if !protocols.isEmpty { _ = SSL_set_alpn_protos(ssl, protocols, UInt32(protocols.count)) }
        if let session = options.session { SSL_set_session(ssl, session.pointer) }
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else { throw TestError("TLS handshake failed: \(openSSLErrors())") }
        return client
    }

    /// `TLSv1.3`, `TLSv1.2`; nil on a plain connection.
    public var tlsVersion: String? { ssl.map { String(cString: SSL_get_version($0)) } }

    public var alpn: String? {
        guard let ssl else { return nil }
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The serial of the certificate the server showed, in hexadecimal.
    public var peerSerial: String? {
        guard let ssl, let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        guard let number = ASN1_INTEGER_to_BN(X509_get_serialNumber(certificate), nil) else { return nil }
        defer { BN_free(number) }
        guard let hex = BN_bn2hex(number) else { return nil }
        defer { CRYPTO_free(hex, #file, #line) }
        return String(cString: hex)
    }

    public var sessionReused: Bool { ssl.map { SSL_session_reused($0) == 1 } ?? false }

    /// The session to resume with. TLS 1.3 sends tickets after the
    /// handshake, so read a response before asking.
    public var tlsSession: TLSClientSession? {
        guard let ssl, let session = SSL_get1_session(ssl) else { return nil }
        return TLSClientSession(session)
    }

    func readSomeTLS(_ ssl: OpaquePointer, timeout: Double) throws -> [UInt8]? {
        if SSL_pending(ssl) == 0 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(timeout * 1000)) == 0 { return nil }
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            ERR_clear_error()
            let n = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress!, Int32($0.count)) }
            if n > 0 { return Array(chunk[0..<Int(n)]) }
            let error = SSL_get_error(ssl, n)
            // Only a post-handshake message (a session ticket) came: wait for data.
            if error == SSL_ERROR_WANT_READ {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, Int32(timeout * 1000)) == 0 { return nil }
                continue
            }
            if error == SSL_ERROR_ZERO_RETURN || error == SSL_ERROR_SYSCALL || error == SSL_ERROR_SSL { return [] }
            throw TestError("TLS read failed: \(openSSLErrors())")
        }
    }
}

func openSSLErrors() -> String {
    var parts: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        parts.append(String(cString: buffer))
    }
    return parts.isEmpty ? "no OpenSSL error" : parts.joined(separator: "; ")
}

/// Self-signed certificates made at test time with the `openssl` program.
public enum TestCertificate {
    /// Writes `NAME.pem` and `NAME.key` in `directory` for `domain`, with `serial`
    /// (hexadecimal), and returns their paths.
    public static func make(in directory: String, name: String, domain: String = "localhost", serial: String) throws -> (chain: String, key: String) {
        let chain = "\(directory)/\(name).pem"
        let key = "\(directory)/\(name).key"
        let result = try runProgram(
            Tools.path("openssl") ?? "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=\(domain)",
                "-addext", "subjectAltName=DNS:\(domain)", "-days", "2", "-set_serial", "0x\(serial)", "-keyout", key, "-out", chain,
            ], mergingErrors: true)
        guard result.status == 0 else { throw TestError("openssl req failed: \(result.output)") }
        return (chain, key)
    }

    public static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
