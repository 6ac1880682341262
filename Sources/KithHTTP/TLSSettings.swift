/// HTTPS beside the plain port (`ServerConfiguration.tls`). Each event loop
/// gets a second listening socket on `port`; connections accepted there
/// speak TLS, everything above the transport is unchanged.
public struct TLSSettings: Sendable {
    public var certificates: TLSCertificates
    /// 0 picks a free port (tests).
    public var port = 443
    /// The name in redirects from the plain port.
    public var domain: String
    /// Sent on every HTTPS response that does not set it itself; nil for none.
    /// Two years without `preload`: preloading is a promise an operator makes
    /// on purpose, not a default.
    public var strictTransportSecurity: String? = "max-age=63072000"
    /// The plain port answers only these path prefixes itself and redirects
    /// everything else (308, path and query kept) to HTTPS. nil: it serves
    /// everything as before.
    public var plainPassThrough: [String]? = ["/.well-known/acme-challenge/"]

    public init(certificates: TLSCertificates, domain: String, port: Int = 443) {
        self.certificates = certificates
        self.domain = domain
        self.port = port
    }

    /// `https://domain` with the port unless it is 443.
    public static func origin(domain: String, port: Int) -> String {
        let host = domain.contains(":") ? "[\(domain)]" : domain
        return port == 443 ? "https://\(host)" : "https://\(host):\(port)"
    }
}

extension HTTPStatus {
    public static let permanentRedirect = HTTPStatus(308, "Permanent Redirect")
}
