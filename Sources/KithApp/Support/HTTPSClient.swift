import CSSL
import Glibc

/// What came back from an HTTPS request.
struct HTTPSResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

enum HTTPSClientError: Error, CustomStringConvertible {
    case invalidURL
    case resolve(String)
    case connect(String)
    case timedOut
    case tls(String)
    case badResponse(String)

    var description: String {
        switch self {
        case .invalidURL: "not an https URL"
        case .resolve(let detail): "cannot resolve host: \(detail)"
        case .connect(let detail): "cannot connect: \(detail)"
        case .timedOut: "timed out"
        case .tls(let detail): "TLS: \(detail)"
        case .badResponse(let detail): "bad response: \(detail)"
        }
    }
}

/// A minimal blocking HTTPS/1.1 client over libssl, for the few requests Kith
/// makes itself (Web Push deliveries, ACME). One request per connection
/// (`Connection: close`); certificates are verified against the system store
/// and the host name, plus an extra CA file when tests pass one.
///
/// It blocks: call it only from a background thread, never a handler or an
/// event loop. `@unchecked Sendable` because it holds an `SSL_CTX` pointer,
/// which is configured once in `init` and afterwards only read; libssl allows
/// a configured context to make connections on several threads at once.
final class HTTPSClient: @unchecked Sendable {
    private let context: OpaquePointer
    let timeoutSeconds: Int
    /// Whether loopback and private addresses may be reached. Off in
    /// production: push endpoints come from users, and a server that POSTs
    /// wherever it is told must not become a way into its own network.
    let allowLocalAddresses: Bool
    /// Responses larger than this are cut off: push services answer in a few bytes.
    static let maxResponseBytes = 256 * 1024

    /// `extraCAFile` is a PEM certificate to trust besides the system store.
    init(extraCAFile: String? = nil, allowLocalAddresses: Bool = false, timeoutSeconds: Int = 15) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw HTTPSClientError.tls("SSL_CTX_new") }
        self.context = context
        self.timeoutSeconds = timeoutSeconds
        self.allowLocalAddresses = allowLocalAddresses
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard kith_ssl_ctx_set_min_tls12(context) == 1, SSL_CTX_set_default_verify_paths(context) == 1 else {
            SSL_CTX_free(context)
            throw HTTPSClientError.tls("configuring the context")
        }
        if let extraCAFile, SSL_CTX_load_verify_locations(context, extraCAFile, nil) != 1 {
            SSL_CTX_free(context)
            throw HTTPSClientError.tls("cannot load CA file")
        }
    }

    deinit { SSL_CTX_free(context) }

    /// POSTs `body` to `url` and returns the response.
    func post(_ url: String, headers: [(String, String)], body: [UInt8]) throws -> HTTPSResponse {
        try request("POST", url, headers: headers, body: body)
    }

    /// Sends one request (GET, HEAD or POST: ACME uses all three) and
    /// returns the response; a HEAD response's body is always empty.
    func request(_ method: String, _ url: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> HTTPSResponse {
        guard ["GET", "HEAD", "POST"].contains(method) else { throw HTTPSClientError.invalidURL }
        guard let target = Target(url) else { throw HTTPSClientError.invalidURL }
        let deadline = Self.now() + Double(timeoutSeconds)
        let socket = try connect(target, deadline: deadline)
        defer { close(socket) }

        guard let ssl = SSL_new(context) else { throw HTTPSClientError.tls("SSL_new") }
        defer { SSL_free(ssl) }
        guard SSL_set_fd(ssl, socket) == 1 else { throw HTTPSClientError.tls("SSL_set_fd") }
        if target.isIPAddress {
            // SNI carries names only (RFC 6066 §3); an address is checked against the certificate's IP entries.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), target.host) == 1 else {
                throw HTTPSClientError.tls("cannot check an IP address")
            }
        } else {
            guard kith_ssl_set_sni(ssl, target.host) == 1, SSL_set1_host(ssl, target.host) == 1 else {
                throw HTTPSClientError.tls("cannot set the host name")
            }
        }
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                throw HTTPSClientError.tls("certificate not trusted: " + String(cString: X509_verify_cert_error_string(verify)))
            }
            throw HTTPSClientError.tls("handshake failed" + Self.pendingErrors())
        }

        var head = "\(method) \(target.pathAndQuery) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
        for (name, value) in headers {
            // A header value may not break out of its line.
            guard !name.contains(where: { $0 == "\r" || $0 == "\n" || $0 == ":" }),
                !value.contains(where: { $0 == "\r" || $0 == "\n" })
            else { throw HTTPSClientError.invalidURL }
            head += "\(name): \(value)\r\n"
        }
        if method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        try write(ssl, Array(head.utf8) + body, deadline: deadline)
        let response = try readResponse(ssl, deadline: deadline, headOnly: method == "HEAD")
        SSL_shutdown(ssl)
        return response
    }

    // MARK: Connecting

    private func connect(_ target: Target, deadline: Double) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard status == 0, let list else { throw HTTPSClientError.resolve(String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            // Checked on the resolved address, so a public name that resolves
            // to a private address is refused too.
            if !allowLocalAddresses && PushAddress.isLocal(current.pointee.ai_addr) {
                lastError = "refusing a local address"
                continue
            }
            let socket = Glibc.socket(current.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if socket < 0 { continue }
            do {
                try connect(socket, current.pointee.ai_addr, current.pointee.ai_addrlen, deadline: deadline)
                return socket
            } catch {
                close(socket)
                lastError = "\(error)"
            }
        }
        throw HTTPSClientError.connect(lastError)
    }

    /// Connects without blocking past the deadline, then leaves the socket
    /// blocking with send and receive timeouts for libssl's reads and writes.
    private func connect(_ socket: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t, deadline: Double) throws {
        let flags = fcntl(socket, F_GETFL)
        _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
        if Glibc.connect(socket, address, length) != 0 {
            guard errno == EINPROGRESS else { throw HTTPSClientError.connect(String(cString: strerror(errno))) }
            var poll = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            let remaining = Int32(max(0, (deadline - Self.now()) * 1000))
            let ready = Glibc.poll(&poll, 1, remaining)
            guard ready > 0 else { throw HTTPSClientError.timedOut }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else { throw HTTPSClientError.connect(String(cString: strerror(error))) }
        }
        _ = fcntl(socket, F_SETFL, flags)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    // MARK: Reading and writing

    private func write(_ ssl: OpaquePointer, _ bytes: [UInt8], deadline: Double) throws {
        var offset = 0
        while offset < bytes.count {
            guard Self.now() < deadline else { throw HTTPSClientError.timedOut }
            let written = bytes.withUnsafeBytes { buffer in
                SSL_write(ssl, buffer.baseAddress! + offset, Int32(min(bytes.count - offset, 1 << 20)))
            }
            guard written > 0 else { throw HTTPSClientError.tls("write failed" + Self.pendingErrors()) }
            offset += Int(written)
        }
    }

    private func readResponse(_ ssl: OpaquePointer, deadline: Double, headOnly: Bool) throws -> HTTPSResponse {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var head: (status: Int, headers: [(String, String)], bodyStart: Int)?
        while true {
            if let head, let expected = headOnly ? 0 : Self.expectedLength(head.headers, status: head.status),
                data.count - head.bodyStart >= expected
            {
                return HTTPSResponse(
                    status: head.status, headers: head.headers, body: Array(data[head.bodyStart..<head.bodyStart + expected]))
            }
            guard Self.now() < deadline else { throw HTTPSClientError.timedOut }
            let count = SSL_read(ssl, &chunk, Int32(chunk.count))
            if count <= 0 {
                // The server closed: whatever arrived is the response.
                guard let head else { throw HTTPSClientError.badResponse("connection closed before a response") }
                let body = Array(data[head.bodyStart...])
                let chunked = head.headers.contains { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") }
                return HTTPSResponse(status: head.status, headers: head.headers, body: chunked ? Self.dechunk(body) : body)
            }
            data += chunk[..<Int(count)]
            guard data.count <= Self.maxResponseBytes else { throw HTTPSClientError.badResponse("response too large") }
            if head == nil { head = try Self.parseHead(data) }
        }
    }

    /// Status line and headers once the blank line has arrived; nil before.
    private static func parseHead(_ data: [UInt8]) throws -> (Int, [(String, String)], Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard data.count >= 4, let end = (0...(data.count - 4)).first(where: { Array(data[$0..<$0 + 4]) == separator })
        else { return nil }
        let lines = String(decoding: data[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw HTTPSClientError.badResponse("status line")
        }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingWhitespace()))
        }
        return (status, headers, end + 4)
    }

    /// The body length when the head states it (or the status forbids a body).
    private static func expectedLength(_ headers: [(String, String)], status: Int) -> Int? {
        if status == 204 || status == 304 || (100..<200).contains(status) { return 0 }
        return headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) }
    }

    /// A chunked body read to the end of the connection, without its framing.
    private static func dechunk(_ body: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < body.count {
            guard let lineEnd = (index..<body.count).first(where: { body[$0] == 10 }) else { break }
            let sizeText = String(decoding: body[index..<lineEnd], as: UTF8.self)
                .split(separator: ";").first.map { String($0).trimmingWhitespace() } ?? ""
            guard let size = Int(sizeText, radix: 16), size > 0, lineEnd + 1 + size <= body.count else { break }
            output += body[(lineEnd + 1)..<(lineEnd + 1 + size)]
            index = lineEnd + 1 + size + 2
        }
        return output
    }

    private static func pendingErrors() -> String {
        var text = ""
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            text += "; " + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return text
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// The parts of an `https://` URL a request needs.
struct Target {
    let host: String
    let port: Int
    let pathAndQuery: String
    let isIPAddress: Bool

    /// `Host` as the URL wrote it: brackets around IPv6, the port when not 443.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? name : "\(name):\(port)"
    }

    init?(_ url: String) {
        guard url.lowercased().hasPrefix("https://") else { return nil }
        let rest = url.dropFirst("https://".count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        let port = portText.map { Int($0) } ?? 443
        guard let port, (1...65535).contains(port), !host.isEmpty,
            !path.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" })
        else { return nil }
        self.host = String(host).lowercased()
        self.port = port
        pathAndQuery = path
        var v4 = in_addr()
        var v6 = in6_addr()
        isIPAddress = inet_pton(AF_INET, self.host, &v4) == 1 || inet_pton(AF_INET6, self.host, &v6) == 1
    }
}

/// Addresses a user-supplied URL may not make Kith connect to: loopback,
/// private, link-local, shared (CGNAT), unspecified and multicast ranges.
enum PushAddress {
    /// For a URL's host as written: `localhost` names and local IP literals.
    static func isLocal(host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host.hasSuffix(".localhost") || host.hasSuffix(".local") { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return isLocal(ipv4: UInt32(bigEndian: v4.s_addr)) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return isLocal(ipv6: withUnsafeBytes(of: v6) { Array($0) }) }
        return false
    }

    static func isLocal(_ address: UnsafeMutablePointer<sockaddr>?) -> Bool {
        guard let address else { return true }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).load(as: sockaddr_in.self)
            return isLocal(ipv4: UInt32(bigEndian: v4.sin_addr.s_addr))
        case AF_INET6:
            let v6 = UnsafeRawPointer(address).load(as: sockaddr_in6.self)
            return isLocal(ipv6: withUnsafeBytes(of: v6.sin6_addr) { Array($0) })
        default:
            return true
        }
    }

    static func isLocal(ipv4 address: UInt32) -> Bool {
        let first = address >> 24
        let second = (address >> 16) & 0xFF
        return first == 0 || first == 10 || first == 127 || first >= 224
            || (first == 169 && second == 254) || (first == 172 && (16...31).contains(second))
            || (first == 192 && second == 168) || (first == 100 && (64...127).contains(second))
    }

    static func isLocal(ipv6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            let v4 = bytes[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return isLocal(ipv4: v4)
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && (bytes[15] == 0 || bytes[15] == 1) { return true }
        return bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80) || bytes[0] == 0xFF
    }
}
