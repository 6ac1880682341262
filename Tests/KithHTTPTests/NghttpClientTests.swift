import Foundation
import Glibc
@testable import KithHTTP
import KithTestSupport
import Testing

/// HTTP/2 as the standard command-line clients speak it: nghttp (one
/// connection, frames printed with -v) and h2load (many connections and
/// streams at once). Both use prior knowledge for http:// addresses, so the
/// engine's h2c path is what they meet; TLS is the same session behind ALPN.
@Suite("HTTP/2 with nghttp and h2load", .enabled(if: Tools.nghttp2Clients), .serialized)
struct NghttpClientTests {
    /// Runs a client under `timeout`, so a hang fails the test instead of the run.
    static func client(_ name: String, _ arguments: [String]) throws -> String {
        let program = try #require(Tools.path(name))
        let result = try runProgram("/usr/bin/timeout", ["60", program] + arguments, mergingErrors: true)
        #expect(result.status != 124, "\(name) timed out")
        return result.output
    }

    static func url(_ harness: HTTP2Harness, _ path: String) -> String { "http://127.0.0.1:\(harness.port)\(path)" }

    /// `:status` per stream from nghttp's -v output.
    static func statuses(_ output: String) -> [Int: Int] {
        var result: [Int: Int] = [:]
        for line in output.split(separator: "\n") {
            // "[  0.001] recv (stream_id=13) :status: 200"
            guard let open = line.range(of: "recv (stream_id="), let close = line[open.upperBound...].firstIndex(of: ")"),
                let id = Int(line[open.upperBound..<close]), let status = line.range(of: ":status: "),
                let code = Int(line[status.upperBound...])
            else { continue }
            result[id] = code
        }
        return result
    }

    /// h2load's summary: requests succeeded, failed and errored, and 2xx statuses.
    static func summary(_ output: String) -> (succeeded: Int, failed: Int, errored: Int, ok: Int)? {
        func number(_ pattern: String) -> Int? {
            guard let match = output.range(of: pattern, options: .regularExpression) else { return nil }
            return Int(output[match].split(separator: " ").first { Int($0) != nil } ?? "")
        }
        guard let succeeded = number("[0-9]+ succeeded"), let failed = number("[0-9]+ failed"),
            let errored = number("[0-9]+ errored"), let ok = number("[0-9]+ 2xx")
        else { return nil }
        return (succeeded, failed, errored, ok)
    }

    @Test("h2load: 2,000 requests over 4 connections × 50 streams all succeed, and the server answers after")
    func manyStreams() throws {
        let harness = try HTTP2Harness()
        let output = try Self.client("h2load", ["-n2000", "-c4", "-m50", Self.url(harness, "/items/9")])
        let summary = try #require(Self.summary(output), "\(output)")
        #expect(summary.succeeded == 2000 && summary.failed == 0 && summary.errored == 0, "\(output)")
        #expect(summary.ok == 2000)
        let after = try HTTP2Client.run("get", port: harness.port, ["/items/10"])
        #expect(after["body"] as? String == "item 10")
    }

    @Test("h2load: a static asset, whole each time, with the header block compressed after the first")
    func staticAsset() throws {
        let harness = try HTTP2Harness()
        let output = try Self.client("h2load", ["-n500", "-c2", "-m20", Self.url(harness, "/static/site.css")])
        let summary = try #require(Self.summary(output), "\(output)")
        #expect(summary.succeeded == 500 && summary.ok == 500, "\(output)")
        // "traffic: … total, … headers (space savings 93.72%), N data": every body whole.
        let data = output.range(of: "[0-9]+\\) data", options: .regularExpression).map { output[$0].dropLast(6) }
        #expect(data.flatMap { Int($0) } == 500 * HTTP2Harness.styleText.utf8.count, "\(output)")
        let savings = output.range(of: "space savings [0-9.]+%", options: .regularExpression)
            .flatMap { Double(output[$0].dropFirst("space savings ".count).dropLast()) }
        #expect((savings ?? 0) > 50, "\(output)")
    }

    @Test("nghttp: three addresses on one connection, each on its own stream with its own status")
    func severalOnOneConnection() throws {
        let harness = try HTTP2Harness()
        let output = try Self.client("nghttp", [
            "-nv", Self.url(harness, "/items/1"), Self.url(harness, "/items/2"), Self.url(harness, "/nowhere"),
        ])
        let statuses = Self.statuses(output)
        #expect(statuses.count == 3, "\(output)")
        #expect(statuses.values.sorted() == [200, 200, 404])
        // One connection: the server's SETTINGS (not counting its ACK) came once.
        let settings = output.split(separator: "\n").filter { $0.contains("recv SETTINGS frame") && $0.contains("flags=0x00") }
        #expect(settings.count == 1, "\(output)")
        #expect(output.components(separatedBy: "recv DATA frame").count - 1 >= 3)
    }

    @Test("nghttp: a 3 MB multipart upload goes through flow control to a file on disk, intact")
    func upload() throws {
        let harness = try HTTP2Harness()
        let boundary = "kith-nghttp-boundary"
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nlarge\r\n".utf8)
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8))
        let size = 3 << 20
        body.append(Data((0..<size).map { UInt8($0 % 256) }))
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        let file = harness.directory.path + "/upload.body"
        try body.write(to: URL(fileURLWithPath: file))
        let output = try Self.client("nghttp", [
            "-d", file, "-H", "content-type: multipart/form-data; boundary=\(boundary)", Self.url(harness, "/upload"),
        ])
        #expect(output == "large \(size):true:true", "\(output.prefix(400))")
    }

    @Test("nghttp: Range gets 206 and exactly the bytes asked for")
    func range() throws {
        let harness = try HTTP2Harness()
        let output = try Self.client("nghttp", ["-H", "range: bytes=100-199", Self.url(harness, "/static/site.css")])
        let text = Array(HTTP2Harness.styleText.utf8)
        #expect(output == String(decoding: text[100..<200], as: UTF8.self))
        let verbose = try Self.client("nghttp", ["-nv", "-H", "range: bytes=100-199", Self.url(harness, "/static/site.css")])
        #expect(Self.statuses(verbose).values.first == 206)
        #expect(verbose.contains("content-range: bytes 100-199/\(text.count)"))
    }

    @Test("nghttp: a header block past the limit is answered 431, and the next request is served")
    func oversizedHeader() throws {
        let harness = try HTTP2Harness()
        let big = "x-big: " + String(repeating: "a", count: 20_000)
        let output = try Self.client("nghttp", ["-nv", "-H", big, Self.url(harness, "/hello")])
        #expect(Self.statuses(output).values.first == 431, "\(output.suffix(600))")
        #expect(try Self.client("nghttp", [Self.url(harness, "/hello")]) == "hello")
    }

    @Test("nghttp: shutting down sends GOAWAY, and the request in flight still gets its answer")
    func goAwayOnShutdown() throws {
        let harness = try HTTP2Harness()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["60", try #require(Tools.path("nghttp")), "-v", Self.url(harness, "/block")]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = Locked("")
        let handle = pipe.fileHandleForReading
        let reader = TestThread {
            while case let data = handle.availableData, !data.isEmpty {
                output.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
        try process.run()
        #expect(harness.eventually { harness.latch.waiting == 1 })
        let shutdown = TestThread { harness.server.shutdown() }
        #expect(harness.eventually { output.value.contains("recv GOAWAY frame") }, "\(output.value)")
        harness.latch.open()
        process.waitUntilExit()
        reader.join()
        shutdown.join()
        let text = output.value
        #expect(text.contains("error_code=NO_ERROR"), "\(text)")
        #expect(Self.statuses(text).values.first == 200, "\(text)")
        #expect(text.hasSuffix("released") || text.contains("released"))
    }
}
