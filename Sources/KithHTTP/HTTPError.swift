/// The one error type handlers throw. `message` is written for the person
/// using Kith and is shown on the error page; `cause` is for the operator and
/// only ever reaches the log.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var status: HTTPStatus
    public var message: String
    public var cause: (any Error)?
    /// Extra response headers (e.g. `Allow` on 405, `Retry-After` on 429/503).
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, _ message: String, cause: (any Error)? = nil, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.message = message
        self.cause = cause
        self.headers = headers
    }

    public static func notFound(_ message: String = "We couldn't find that page.") -> HTTPError {
        HTTPError(.notFound, message)
    }

    public static func badRequest(_ message: String, cause: (any Error)? = nil) -> HTTPError {
        HTTPError(.badRequest, message, cause: cause)
    }

    public static func forbidden(_ message: String) -> HTTPError {
        HTTPError(.forbidden, message)
    }

    /// Wraps an unexpected failure: the person sees an apology, the log sees why.
    public static func `internal`(_ cause: any Error) -> HTTPError {
        HTTPError(.internalServerError, "Something went wrong on our side. Please try again.", cause: cause)
    }

    public var description: String {
        if let cause { return "\(status.code) \(message) (cause: \(String(describing: cause)))" }
        return "\(status.code) \(message)"
    }
}
