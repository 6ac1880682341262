import CSSL
import Foundation
import Glibc

/// A deliberately simple HTTP/1.1 client over a raw socket, for tests that
/// must control every byte: pipelining, malformed requests, stalls, half-closes.
public final class TestClient {
    public let fd: Int32
    private var buffer: [UInt8] = []
    /// Set by `TestClient.tls(…)`: every byte then goes through TLS.
    var ssl: OpaquePointer?

    /// - Parameter source: the local address to connect from, such as
    ///   `127.0.0.2`: any address in 127.0.0.0/8 is this machine, so tests
    ///   can play several clients from several addresses.
    public init(port: Int, host: String = "127.0.0.1", from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket failed") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw TestError("bind to \(source) failed: errno \(errno)") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // On failure deinit closes the socket: every stored property is set.
        guard rc == 0 else { throw TestError("connect to \(port) failed: errno \(errno)") }
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        close(fd)
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                if let ssl { return Int(SSL_write(ssl, raw.baseAddress! + offset, Int32(raw.count - offset))) }
                return Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw TestError("send failed: errno \(errno)") }
            offset += n
        }
    }

    /// Sends and reports whether the peer had already gone (EPIPE/ECONNRESET).
    public func trySend(_ bytes: [UInt8]) -> Bool {
        (try? send(bytes)) != nil
    }

    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Bytes the server has sent on this connection so far.
    public private(set) var bytesReceived = 0

    /// Whether the server has already closed (or reset) this connection:
    /// its end of stream waits in the socket. Peeks without waiting and
    /// without consuming anything, on the raw socket (under TLS an early
    /// session ticket is data, not a close).
    public var peerClosed: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE))
    }

    /// Reads once, waiting up to `timeout`. nil on timeout, [] on end of stream.
    public func readSome(timeout: Double) throws -> [UInt8]? {
        let bytes = try readSomeRaw(timeout: timeout)
        bytesReceived += bytes?.count ?? 0
        return bytes
    }

    private func readSomeRaw(timeout: Double) throws -> [UInt8]? {
        if let ssl { return try readSomeTLS(ssl, timeout: timeout) }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(timeout * 1000))
        if ready == 0 { return nil }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        if n < 0 {
            if errno == ECONNRESET { return [] }
            throw TestError("recv failed: errno \(errno)")
        }
        return Array(chunk[0..<n])
    }

    /// True when the server closes the connection within `timeout`.
    public func waitForClose(timeout: Double) throws -> Bool {
        let deadline = Clock.now + timeout
        while Clock.now < deadline {
            guard let bytes = try readSome(timeout: max(0.01, deadline - Clock.now)) else { return false }
            if bytes.isEmpty { return true }
            buffer += bytes
        }
        return false
    }

    /// Reads one complete response (Content-Length, chunked, or until close).
    public func readResponse(timeout: Double = 10, headRequest: Bool = false) throws -> TestResponse {
        let deadline = Clock.now + timeout
        func fill() throws -> Bool {
            let remaining = deadline - Clock.now
            guard remaining > 0, let bytes = try readSome(timeout: remaining) else { throw TestError("timed out reading a response") }
            if bytes.isEmpty { return false }
            buffer += bytes
            return true
        }
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find([13, 10, 13, 10], in: buffer)
            if headEnd == nil, try !fill() { throw TestError("connection closed before a response head") }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TestError("bad status line: \(statusLine)") }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = TestResponse(status: status, headers: headers, body: [])
        if headRequest || status == 304 || status == 204 || (100..<200).contains(status) { return response }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            while buffer.count < length {
                if try !fill() { throw TestError("connection closed mid-body") }
            }
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            throw TestError("chunked responses are not expected from Kith")
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads until `marker` has arrived (for streams); returns everything read so far.
    public func read(until marker: String, timeout: Double) throws -> String {
        let deadline = Clock.now + timeout
        let needle = Array(marker.utf8)
        while Self.find(needle, in: buffer) == nil {
            let remaining = deadline - Clock.now
            guard remaining > 0, let bytes = try readSome(timeout: remaining) else { throw TestError("timed out waiting for \(marker)") }
            if bytes.isEmpty { throw TestError("closed before \(marker)") }
            buffer += bytes
        }
        let text = String(decoding: buffer, as: UTF8.self)
        buffer = []
        return text
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<start + needle.count]) == needle { return start }
        }
        return nil
    }
}

public struct TestResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

public struct TestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}

public enum Clock {
    /// Monotonic seconds.
    public static var now: Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

