import KithCrypto
import KithHTTP

/// The one check every state-changing request passes before its handler runs:
/// the browser must say the request comes from Kith's own origin, and the
/// form (or the `X-CSRF-Token` header of a script) must carry the token of
/// this session or pre-session. Either failing is a 403 and nothing is written.
enum CSRF {
    static let fieldName = "_csrf"
    static let headerName = "X-CSRF-Token"

    /// The half of the check a request's head can answer: where it comes from.
    static func checkOrigin(_ request: Request, origin allowedOrigin: String) throws(HTTPError) {
        if let origin = request.headers["Origin"] {
            // `Origin: null` (privacy-sensitive contexts, some redirects) is not ours either.
            guard origin == allowedOrigin else { throw refused }
        } else if let site = request.headers["Sec-Fetch-Site"] {
            guard site == "same-origin" || site == "none" else { throw refused }
        }
    }

    static func checkToken(_ sent: String?, expected expectedToken: String) throws(HTTPError) {
        let sent = sent ?? ""
        guard !sent.isEmpty, constantTimeEquals(Array(sent.utf8), Array(expectedToken.utf8)) else { throw expired }
    }

    private static let refused = HTTPError(
        .forbidden, "That request came from another site, so Kith ignored it. Nothing was changed.")
    static let expired = HTTPError(
        .forbidden, "This form has expired. Go back, reload the page and try again. Nothing was changed.")

    /// `scheme://host[:port]` of a base URL, as browsers write it in `Origin`.
    static func origin(of baseURL: String) -> String {
        guard let schemeEnd = baseURL.firstRange(of: "://") else { return baseURL }
        let afterScheme = baseURL[schemeEnd.upperBound...]
        let authority = afterScheme.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        let scheme = baseURL[..<schemeEnd.lowerBound].lowercased()
        var host = authority.lowercased()
        if scheme == "http" && host.hasSuffix(":80") { host.removeLast(3) }
        if scheme == "https" && host.hasSuffix(":443") { host.removeLast(4) }
        return "\(scheme)://\(host)"
    }
}
