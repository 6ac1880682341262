import KithHTTP

/// Why a page's script was refused when the refusal means "what you were
/// looking at has ended", said in one header so every script tells the
/// person the same thing in words (and rolls back what it showed early)
/// instead of guessing from a status code. Sent only with refusals that
/// reveal nothing a stranger could not learn anyway: a scope's 404 looks
/// the same for "never yours" and "no longer yours".
public enum Ending: String, Sendable {
    /// The session behind the page is over: signed out here, everywhere,
    /// or by a password change on another device.
    case signedOut = "signed-out"
    /// The group, game or tally is no longer the viewer's to see.
    case gone

    public static let header = "X-Kith-Ending"

    var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(Self.header, rawValue)
        return headers
    }
}

extension HTTPError {
    /// A page script's request after its session ended. A browser's own
    /// navigation is sent to sign in instead (`RequestContext.requireUser`).
    static let signedOut = HTTPError(
        .unauthorized, "You were signed out, so nothing was changed. Sign in again to carry on.",
        headers: Ending.signedOut.headers)

    /// Outside a scope: the same 404 for "no such thing" and "not yours".
    static func outsideScope() -> HTTPError {
        HTTPError(.notFound, "We couldn't find that page.", headers: Ending.gone.headers)
    }
}
