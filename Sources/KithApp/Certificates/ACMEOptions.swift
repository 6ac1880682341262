import KithCrypto

/// How Kith gets its own certificates over ACME (RFC 8555).
public struct ACMEOptions: Sendable {
    public static let letsEncrypt = "https://acme-v02.api.letsencrypt.org/directory"
    public static let letsEncryptStaging = "https://acme-staging-v02.api.letsencrypt.org/directory"

    public enum Challenge: String, Sendable {
        /// A file under `/.well-known/acme-challenge/` on port 80.
        case http01 = "http-01"
        /// A special certificate on port 443, chosen by ALPN `acme-tls/1`.
        case tlsALPN01 = "tls-alpn-01"
    }

    public var directoryURL = letsEncrypt
    /// A PEM root to trust for the directory's own HTTPS besides the
    /// system's, for a test CA such as pebble.
    public var caFile: String?
    /// Sent as `mailto:` so the CA can warn of problems; optional.
    public var email: String?
    /// One certificate covers them all; the first names its files. Empty:
    /// no certificates are fetched while serving.
    public var domains: [String] = []
    public var challenge = Challenge.http01
    /// Renew when this little validity remains (Let's Encrypt's advice).
    public var renewBeforeSeconds: Int64 = 30 * 86400
    /// How often the background task looks; the look is a file read unless
    /// renewal is due, so it may be much more often than daily.
    public var checkIntervalSeconds: Double = 3600
    /// The first retry after a failure; doubled each time up to `maximumBackoffSeconds`.
    public var firstBackoffSeconds: Int64 = 300
    public var maximumBackoffSeconds: Int64 = 86400
    /// Whether the server's background task checks; tests that drive
    /// `CertificateManager.check()` themselves turn it off.
    public var renewsInBackground = true

    public init() {}

    /// A name a certificate can carry: LDH labels, no IP addresses (which
    /// http-01 cannot prove), no wildcards (which need dns-01).
    static func isDomainName(_ name: String) -> Bool {
        (try? CertificateBuilder.checkDomain(name)) != nil && !name.hasPrefix("*") && name.contains(".")
            && !name.split(separator: ".").last!.allSatisfy(\.isNumber)
    }
}
