import Foundation
import Testing

@testable import KithHTTP

/// Runs llhttp's request test cases (MIT, see Fixtures/llhttp-request/LICENSE) through
/// HTTPParser and compares verdicts. llhttp is the parser behind Node.js, so where Kith
/// differs it must be on purpose: every difference is listed in `deliberateDifferences`
/// with its reason, and anything else fails the test.
@Suite struct LLHTTPVectorTests {
    @Test func kithAgreesWithLLHTTPExceptWhereListed() throws {
        let cases = try VectorCase.loadAll()
        #expect(cases.count > 100, "the fixtures were not found or not parsed")

        var agree = 0
        var agreeOnClose: [String] = []
        var stricter: [String: Int] = [:]
        var laxer: [String: Int] = [:]
        var disagreements: [String] = []
        var compared: Set<String> = []

        for vector in cases where vector.skipReason == nil {
            compared.insert(vector.name)
            let expected = vector.llhttpVerdict
            let kith = KithRun.run(vector.bytes, stopAfter: expected.stopAfter)
            // Most llhttp requests omit Host and a few carry a fragment, either of which Kith
            // refuses on its own. Running them again without those shows what else differs,
            // so a listed reason is checked rather than taken on trust, and a smuggling case
            // cannot pass merely because it also lacked a Host.
            let withHost = KithRun.run(vector.rewritten(droppingFragments: false), stopAfter: expected.stopAfter)
            let cleaned = KithRun.run(vector.rewritten(droppingFragments: true), stopAfter: expected.stopAfter)
            let agrees =
                kith.agrees(with: expected) && (expected.outcome != .rejected || cleaned.agrees(with: expected))

            let reason = deliberateDifferences[vector.name]
            switch (agrees, reason) {
            case (true, nil):
                agree += 1
                if kith.outcome != expected.outcome { agreeOnClose.append(vector.name) }
            case (true, let reason?):
                disagreements.append("\(vector.name) is listed as \"\(reason)\" but agrees with llhttp")
            case (false, nil):
                disagreements.append(
                    "\(vector.name): llhttp \(expected); Kith \(kith), and \(cleaned) without Host/fragment issues")
            case (false, let reason?):
                let confirmed =
                    switch reason {
                    case Reason.missingHost: withHost.agrees(with: expected)
                    case Reason.fragment: !withHost.agrees(with: expected) && cleaned.agrees(with: expected)
                    default: !cleaned.agrees(with: expected)
                    }
                guard confirmed else {
                    disagreements.append(
                        "\(vector.name): listed as \"\(reason)\", but Kith gives \(withHost) with Host added "
                            + "and \(cleaned) with fragments also dropped")
                    continue
                }
                let decisive = reason == Reason.missingHost || reason == Reason.fragment ? kith : cleaned
                if decisive.isStricter(than: expected) {
                    stricter[reason, default: 0] += 1
                } else {
                    laxer[reason, default: 0] += 1
                }
            }
        }

        let stale = Set(deliberateDifferences.keys).subtracting(compared)
        #expect(stale.isEmpty, "listed cases that are not compared: \(stale.sorted())")
        for line in disagreements { Issue.record("unexplained difference: \(line)") }

        let stricterCount = stricter.values.reduce(0, +)
        let laxerCount = laxer.values.reduce(0, +)
        print(
            "llhttp vectors: \(compared.count) cases, \(agree) agree (\(agreeOnClose.count) refused only at finish()), "
                + "\(stricterCount) stricter (listed), "
                + "\(laxerCount) laxer (listed), \(disagreements.count) disagree; \(cases.count - compared.count) "
                + "skipped (llhttp leniency options, RTSP/ICE, runner-only callbacks)")
        for name in agreeOnClose { print("  refused at finish(), its line never ended: \(name)") }
        for (reason, count) in stricter.sorted(by: { $0.value > $1.value }) { print("  stricter, \(count): \(reason)") }
        for (reason, count) in laxer.sorted(by: { $0.value > $1.value }) { print("  laxer, \(count): \(reason)") }
    }

    @Test func byteAtATimeFeedingGivesTheSameVerdicts() throws {
        for vector in try VectorCase.loadAll() where vector.skipReason == nil {
            let stopAfter = vector.llhttpVerdict.stopAfter
            let whole = KithRun.run(vector.bytes, stopAfter: stopAfter)
            let trickled = KithRun.run(vector.bytes, stopAfter: stopAfter, pieceSize: 1)
            #expect(whole == trickled, "\(vector.name): whole \(whole), byte by byte \(trickled)")
            #expect(whole.error == trickled.error, "\(vector.name)")
        }
    }
}

// MARK: - Deliberate differences

/// Why Kith answers differently from llhttp.
private enum Reason {
    static let missingHost = "HTTP/1.1 without Host is refused (RFC 9112 §3.2)"
    static let fragment = "a fragment (#) is never sent in a request target (RFC 9110 §4.2.4)"
    static let asterisk = "the asterisk-form target is only for OPTIONS (RFC 9112 §3.2.4)"
    static let otherCodings = "transfer codings other than chunked are not implemented (501)"
    static let userinfo = "userinfo in an http(s) target is treated as an error (RFC 9110 §4.2.4)"
    static let http09 = "a request line without a version (HTTP/0.9) is refused"
    static let http2Preface = "the HTTP/2 preface is not HTTP/1.x"
    static let tokenMethod = "any token is a valid method; the router answers 405/501 (RFC 9110 §9.1)"
}

/// Cases where Kith deliberately differs from llhttp, keyed by "file › heading".
private let deliberateDifferences: [String: String] = {
    let groups: [(reason: String, cases: [String])] = [
        (
            Reason.missingHost,
            [
                "connection.md › Setting flag",
                "connection.md › Restarting when keep-alive is explicitly",
                "connection.md › Setting flag on `close`",
                "connection.md › Setting flag on `close` followed by tab",
                "connection.md › Sample",
                "connection.md › Multiple tokens with folding and LWS",
                "connection.md › Setting a flag and pausing",
                "connection.md › Emitting part of body and pausing",
                "content-length.md › `Content-Length` with zeroes",
                "content-length.md › `Content-Length` with follow-up headers",
                "content-length.md › Spaces in `Content-Length` (surrounding)",
                "content-length.md › Tabs in `Content-Length` (surrounding)",
                "finish.md › It should be safe to finish after GET request",
                "method.md › REPORT request",
                "pipelining.md › Should parse multiple events",
                "sample.md › Simple request",
                "sample.md › Request with method starting with `H`",
                "sample.md › DUMBPACK",
                "sample.md › No headers and no body",
                "sample.md › One header and no body",
                "sample.md › Prefix newline",
                "sample.md › Request starting with CRLF",
                "sample.md › Extended Characters",
                "sample.md › 255 ASCII in header value",
                "transfer-encoding.md › Parsing and setting flag",
                "transfer-encoding.md › Parse chunks with lowercase size",
                "transfer-encoding.md › Parse chunks with uppercase size",
                "transfer-encoding.md › POST with `Transfer-Encoding: chunked`",
                "transfer-encoding.md › Two chunks and triple zero prefixed end chunk",
                "transfer-encoding.md › Trailing headers",
                "transfer-encoding.md › Chunk extensions",
                "transfer-encoding.md › Chunk extensions quoting",
                "uri.md › Quotes in URI",
                "uri.md › Query URL with question mark",
                "uri.md › Host terminated by a query string",
                "uri.md › `host:port` terminated by a query string",
                "uri.md › Query URL with vertical bar character",
                "uri.md › `host:port` terminated by a space",
            ]
        ),
        (Reason.fragment, ["uri.md › Fragment in URI"]),
        (Reason.userinfo, ["uri.md › `host:port` and basic auth"]),
        (
            Reason.otherCodings,
            [
                "transfer-encoding.md › POST with `chunked` as last transfer-encoding",
                "transfer-encoding.md › POST with `chunked` as last transfer-encoding (multiple headers)",
            ]
        ),
        (Reason.asterisk, ["method.md › M-SEARCH request"]),
        (Reason.http09, ["sample.md › No HTTP version"]),
        (Reason.http2Preface, ["method.md › PRI request HTTP2"]),
        (Reason.tokenMethod, ["invalid.md › HTTP protocol and ANNOUNCE method", "invalid.md › Invalid method"]),
    ]
    return Dictionary(uniqueKeysWithValues: groups.flatMap { group in group.cases.map { ($0, group.reason) } })
}()

// MARK: - Running Kith

/// What happened to one input: how many messages completed, and how the input ended.
private struct Verdict: Equatable, CustomStringConvertible {
    enum Outcome: Equatable {
        /// Ended on a message boundary (or the connection was handed off or closed there).
        case complete
        /// Ended inside a message without an error so far.
        case incomplete
        /// Refused.
        case rejected
    }

    var messages: Int
    var outcome: Outcome
    /// Why Kith refused, when it did.
    var error: HTTPParseError?
    /// llhttp stopped parsing after this many messages (an upgrade, CONNECT tunnel or
    /// `Connection: close`); Kith is then fed no further either.
    var stopAfter: Int?

    var description: String {
        switch outcome {
        case .complete: "\(messages) message(s), complete"
        case .incomplete: "\(messages) message(s), then incomplete"
        case .rejected: "\(messages) message(s), then rejected" + (error.map { " (\($0))" } ?? "")
        }
    }

    static func == (a: Verdict, b: Verdict) -> Bool { a.messages == b.messages && a.outcome == b.outcome }

    /// Kith cannot reject a line before its end has arrived: an input llhttp rejects
    /// mid-line is incomplete for Kith, and `finish()` then refuses it with 400.
    func agrees(with llhttp: Verdict) -> Bool {
        self == llhttp || (messages == llhttp.messages && outcome == .incomplete && llhttp.outcome == .rejected)
    }

    func isStricter(than llhttp: Verdict) -> Bool {
        outcome == .rejected || messages < llhttp.messages
    }
}

private enum KithRun {
    /// Feeds `input` the way the event loop does: append what arrived, parse until
    /// `.needMore`, drop what was consumed. `pieceSize` nil feeds everything at once.
    static func run(_ input: [UInt8], stopAfter: Int?, pieceSize: Int? = nil) -> Verdict {
        var parser = HTTPParser()
        var buffer: [UInt8] = []
        var fed = 0
        var messages = 0
        var keepAlive = true
        while fed < input.count {
            let piece = min(pieceSize ?? input.count, input.count - fed)
            buffer.append(contentsOf: input[fed..<(fed + piece)])
            fed += piece
            while true {
                let step: (event: HTTPParser.Event, consumed: Int)
                do {
                    step = try parser.parse(buffer)
                } catch {
                    return Verdict(messages: messages, outcome: .rejected, error: error)
                }
                buffer.removeFirst(step.consumed)
                switch step.event {
                case .needMore:
                    break
                case .head(let head):
                    keepAlive = head.keepAlive
                    continue
                case .body:
                    continue
                case .end:
                    messages += 1
                    // The server stops reading after a message that closes the connection.
                    if !keepAlive || messages == stopAfter { return Verdict(messages: messages, outcome: .complete) }
                    continue
                }
                break
            }
        }
        do {
            try parser.finish()
            return Verdict(messages: messages, outcome: .complete)
        } catch {
            return Verdict(messages: messages, outcome: .incomplete, error: error)
        }
    }
}

// MARK: - Reading the fixtures

/// One case of llhttp's markdown test format, as described in the fixtures' README.md.
private struct VectorCase {
    var name: String
    var type: String
    var skipBody: Bool
    var bytes: [UInt8]
    var log: [String]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/llhttp-request")

    static func loadAll() throws -> [VectorCase] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".md") && $0 != "README.md" }
            .sorted()
        var cases: [VectorCase] = []
        for file in files {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            cases += parse(Array(data), file: file)
        }
        return cases
    }

    /// Splits a markdown file into cases. Works on bytes, so that non-ASCII text in the
    /// request blocks reaches the parser as the UTF-8 it was written in.
    static func parse(_ text: [UInt8], file: String) -> [VectorCase] {
        let lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        var cases: [VectorCase] = []
        var heading = ""
        var type: String?
        var skipBody = false
        var request: [UInt8]?
        var occurrences: [String: Int] = [:]
        var index = 0

        func block(startingAfter start: Int) -> (lines: [[UInt8]], next: Int) {
            var end = start + 1
            while end < lines.count, lines[end] != Array("```".utf8) { end += 1 }
            return (Array(lines[(start + 1)..<min(end, lines.count)]), end + 1)
        }

        while index < lines.count {
            let line = String(decoding: lines[index], as: UTF8.self)
            if line.hasPrefix("#") {
                heading = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
                index += 1
            } else if line.hasPrefix("<!-- meta="), let json = line.range(of: "{"),
                let close = line.range(of: "}", options: .backwards)
            {
                let object = try? JSONSerialization.jsonObject(
                    with: Data(line[json.lowerBound..<close.upperBound].utf8))
                let meta = object as? [String: Any] ?? [:]
                type = meta["type"] as? String
                skipBody = meta["skipBody"] as? Bool ?? false
                index += 1
            } else if line == "```http" {
                let (body, next) = block(startingAfter: index)
                request = decode(body)
                index = next
            } else if line == "```log" {
                let (body, next) = block(startingAfter: index)
                index = next
                guard let bytes = request, let kind = type else { continue }
                let base = "\(file) › \(heading)"
                occurrences[base, default: 0] += 1
                let name = occurrences[base]! == 1 ? base : "\(base) (\(occurrences[base]!))"
                let log = body.map { String(decoding: $0, as: UTF8.self) }
                cases.append(VectorCase(name: name, type: kind, skipBody: skipBody, bytes: bytes, log: log))
                request = nil
                type = nil
                skipBody = false
            } else {
                index += 1
            }
        }
        return cases
    }

    /// Newlines become CRLF, the block's last newline is dropped, a backslash at the end of
    /// a line joins it to the next, and `\r \n \t \f \xHH` are escapes.
    static func decode(_ lines: [[UInt8]]) -> [UInt8] {
        var joined: [UInt8] = []
        for (number, line) in lines.enumerated() {
            if line.last == UInt8(ascii: "\\"), number < lines.count - 1 {
                joined += line.dropLast()
            } else {
                joined += line
                if number < lines.count - 1 { joined += [0x0D, 0x0A] }
            }
        }
        var bytes: [UInt8] = []
        var i = 0
        while i < joined.count {
            let byte = joined[i]
            guard byte == UInt8(ascii: "\\"), i + 1 < joined.count else {
                bytes.append(byte)
                i += 1
                continue
            }
            switch joined[i + 1] {
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "x") where i + 3 < joined.count:
                let hex = String(decoding: joined[(i + 2)...(i + 3)], as: UTF8.self)
                if let value = UInt8(hex, radix: 16) {
                    bytes.append(value)
                    i += 4
                    continue
                }
                bytes.append(byte)
                i += 1
                continue
            default:
                bytes.append(byte)
                i += 1
                continue
            }
            i += 2
        }
        return bytes
    }

    /// The input with a Host field added after every HTTP/1.1 request line (unless it has
    /// one somewhere) and, if asked, fragments removed from request targets: the two
    /// things llhttp's requests often carry that Kith refuses on their own.
    func rewritten(droppingFragments: Bool) -> [UInt8] {
        let hasHost = String(decoding: bytes, as: UTF8.self).lowercased().contains("\nhost:")
        let versions = [" HTTP/1.1\r\n", " HTTP/1.0\r\n"].map { Array($0.utf8) }
        var result: [UInt8] = []
        var lineStart = 0
        var i = 0
        while i < bytes.count {
            guard let version = versions.first(where: { bytes[i...].starts(with: $0) }) else {
                result.append(bytes[i])
                i += 1
                if bytes[i - 1] == 0x0A { lineStart = result.count }
                continue
            }
            if droppingFragments, let hash = result[lineStart...].firstIndex(of: UInt8(ascii: "#")) {
                result.removeSubrange(hash...)
            }
            result += version
            if !hasHost, version == versions[0] { result += Array("Host: example.com\r\n".utf8) }
            i += version.count
            lineStart = result.count
        }
        return result
    }

    /// Cases Kith has no counterpart for.
    var skipReason: String? {
        if type.contains("lenient") { return "an llhttp leniency option" }
        if skipBody { return "the runner's skip-body callback" }
        let firstLine =
            bytes.split(separator: 0x0D, maxSplits: 1).first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        if firstLine.contains(" RTSP/") || firstLine.contains(" ICE/") { return "not HTTP" }
        return nil
    }

    /// What llhttp reported, read from the log block.
    var llhttpVerdict: Verdict {
        let messages = log.filter { $0.hasSuffix(" message complete") }.count
        if let error = log.first(where: { $0.contains(" error code=") }) {
            let code = error.split(separator: " ").first { $0.hasPrefix("code=") }.map { $0.dropFirst(5) } ?? ""
            switch code {
            // HPE_CLOSED_CONNECTION: data after a message that closes the connection, and
            // HPE_PAUSED_UPGRADE / HPE_PAUSED_H2_UPGRADE: the stream stops being HTTP/1.
            // Both happen after the last message, so llhttp has accepted everything before.
            case "5", "22", "23":
                return Verdict(messages: messages, outcome: .complete, stopAfter: messages > 0 ? messages : nil)
            default:
                return Verdict(messages: messages, outcome: .rejected)
            }
        }
        if type == "request-finish" {
            let safe = log.contains { $0.hasSuffix("finish=0") }
            return Verdict(messages: messages, outcome: safe ? .complete : .incomplete)
        }
        let ended = log.last?.hasSuffix(" message complete") ?? false
        return Verdict(messages: messages, outcome: ended ? .complete : .incomplete)
    }
}
