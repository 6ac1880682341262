import Foundation
import KithHTTP
import KithTestSupport

/// One browser's worth of state over raw HTTP: cookies kept between requests,
/// the page's CSRF token read back from its forms, and the Origin a browser
/// sends with a form post.
/// Not shared between threads while in use; a race test hands each thread its own.
final class WebSession: @unchecked Sendable {
    let port: Int
    private(set) var cookies: [String: String] = [:]
    var origin: String
    /// Sent as `X-Forwarded-For` with every request: this browser as a
    /// reverse proxy would name it.
    var forwardedFor: String?
    /// The `_once` token of the last page `token(from:)` read, sent with the
    /// next post that names none, as a browser posts the form it was shown.
    var pendingOnceToken: String?
    /// How to reach the server; a plain socket to `port` when nil (HTTPS tests set a TLS client).
    var connect: (() throws -> TestClient)?

    init(port: Int) {
        self.port = port
        origin = "http://127.0.0.1:\(port)"
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> TestResponse {
        try send("GET", path, body: [], headers: headers)
    }

    /// Posts a form as a browser would: urlencoded, with this session's
    /// cookies, its Origin, and (unless told otherwise) the CSRF token.
    func post(_ path: String, _ fields: [(String, String)], csrf: String? = nil, headers: [String: String] = [:]) throws -> TestResponse {
        var all = fields
        if let csrf { all.append(("_csrf", csrf)) }
        if let once = pendingOnceToken, !fields.contains(where: { $0.0 == "_once" }) { all.append(("_once", once)) }
        pendingOnceToken = nil
        let body = all.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try post(path, rawBody: Array(body.utf8), headers: headers)
    }

    func post(_ path: String, rawBody: [UInt8], headers: [String: String] = [:]) throws -> TestResponse {
        var headers = headers
        headers["Content-Type"] = headers["Content-Type"] ?? "application/x-www-form-urlencoded"
        if headers["Origin"] == nil && !origin.isEmpty { headers["Origin"] = origin }
        return try send("POST", path, body: rawBody, headers: headers)
    }

    /// The `_csrf` value of the first form on a page.
    static func csrfToken(in page: TestResponse) -> String? {
        let text = page.text
        guard let range = text.range(of: #"name="_csrf" value="([^"]+)""#, options: .regularExpression) else { return nil }
        let match = String(text[range])
        return match.components(separatedBy: "value=\"").last.map { String($0.dropLast()) }
    }

    /// The `_once` value of the first create form on a page.
    static func onceToken(in page: TestResponse) -> String? {
        let text = page.text
        guard let range = text.range(of: #"name="_once" value="([^"]+)""#, options: .regularExpression) else { return nil }
        let match = String(text[range])
        return match.components(separatedBy: "value=\"").last.map { String($0.dropLast()) }
    }

    /// GETs a page and returns its form token: what a browser does before it
    /// posts. The page's once token, if it has one, goes with the next post.
    func token(from path: String) throws -> String {
        let page = try get(path)
        guard let token = Self.csrfToken(in: page) else { throw TestError("no form token on \(path) (\(page.status))") }
        pendingOnceToken = Self.onceToken(in: page)
        return token
    }

    var sessionCookie: String? { cookies["kith_session"] }

    func setCookie(_ name: String, _ value: String?) { cookies[name] = value }

    private func send(_ method: String, _ path: String, body: [UInt8], headers: [String: String], retried: Bool = false) throws -> TestResponse {
        var client = try connect?() ?? TestClient(port: port)
        // The server may close a connection that has sent nothing for its
        // header timeout (a slow client's defence), timed from accept. A
        // test thread stalled that long on a loaded machine between connect
        // and send then finds its fresh connection gone. Closed before the
        // send, the server cannot have seen the request: a new connection
        // is safe for any method, as a browser treats a stale idle socket.
        if client.peerClosed { client = try connect?() ?? TestClient(port: port) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if !cookies.isEmpty {
            head += "Cookie: " + cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") + "\r\n"
        }
        if let forwardedFor { head += "X-Forwarded-For: \(forwardedFor)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        let response: TestResponse
        do {
            try client.send(Array((head + "\r\n").utf8) + body)
            response = try client.readResponse(timeout: 20)
        } catch where method == "GET" && client.bytesReceived == 0 && client.peerClosed && !retried {
            // Closed after the send with no answer: the close may still have
            // come first (a stall between the check above and the send), but
            // the server might also have read the request. Only an
            // idempotent request may go again without knowing (RFC 9110
            // §9.2.2); a post's failure stands.
            return try send(method, path, body: body, headers: headers, retried: true)
        }
        for (name, value) in response.headers where name.lowercased() == "set-cookie" {
            let pair = value.split(separator: ";", maxSplits: 1)[0]
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let cookieName = String(pair[..<equals]).trimmingCharacters(in: .whitespaces)
            let cookieValue = String(pair[pair.index(after: equals)...])
            if value.contains("Max-Age=0") || cookieValue.isEmpty {
                cookies[cookieName] = nil
            } else {
                cookies[cookieName] = cookieValue
            }
        }
        return response
    }

    static func encode(_ text: String) -> String { PercentEncoding.encodeQueryComponent(text) }
}
