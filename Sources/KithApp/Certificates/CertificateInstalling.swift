import KithHTTP

/// Where issued certificates go: the TLS layer's certificate holder
/// (`TLSCertificates` in KithHTTP joins this protocol where both are built),
/// or a recorder in tests. The ACME client knows nothing else about TLS.
public protocol CertificateInstalling: Sendable {
    /// Makes `chainPEM` (leaf first) and its key the certificate new
    /// handshakes present; connections already open keep theirs.
    func install(chainPEM: [UInt8], keyPEM: [UInt8]) throws
    /// Presents this certificate only to handshakes for `domain` whose ALPN
    /// offers `acme-tls/1` (RFC 8737), while a tls-alpn-01 challenge is open.
    func setChallenge(domain: String, chainPEM: [UInt8], keyPEM: [UInt8]) throws
    func removeChallenge(domain: String)
}

/// The HTTPS port's certificates: a new certificate serves the next
/// handshake, a challenge certificate only `acme-tls/1` handshakes for its name.
extension TLSCertificates: CertificateInstalling {}
