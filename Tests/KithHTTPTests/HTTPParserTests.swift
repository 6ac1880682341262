import Testing

@testable import KithHTTP

// MARK: - Driving the parser

extension HTTPParser {
    /// `parse` over an array, for tests. (Array.withUnsafeBytes is not typed-throws, so the
    /// error travels out of its closure as a Result.)
    mutating func parse(_ bytes: [UInt8]) throws(HTTPParseError) -> (event: Event, consumed: Int) {
        let result = bytes.withUnsafeBytes { raw -> Result<(event: Event, consumed: Int), HTTPParseError> in
            do throws(HTTPParseError) {
                return .success(try parse(raw))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// Everything one input produced, collected the way the event loop consumes events.
private struct Parsed {
    var heads: [RequestHead] = []
    /// The body of each message, de-chunked.
    var bodies: [[UInt8]] = []
    var ends = 0
}

/// Feeds `input` in pieces of `pieceSize` bytes (all at once when nil), parsing until
/// `.needMore` after each piece, then calls `finish()`.
private func parse(
    _ input: [UInt8], pieceSize: Int? = nil, limits: HTTPParser.Limits = .init()
) throws(HTTPParseError) -> Parsed {
    var parser = HTTPParser(limits: limits)
    var parsed = Parsed()
    var buffer: [UInt8] = []
    var fed = 0
    repeat {
        let piece = min(pieceSize ?? input.count, input.count - fed)
        buffer += input[fed..<(fed + piece)]
        fed += piece
        while true {
            let (event, consumed) = try parser.parse(buffer)
            #expect(consumed <= buffer.count)
            if case .body(let range) = event {
                #expect(range.upperBound <= consumed && !range.isEmpty)
                parsed.bodies[parsed.bodies.count - 1] += buffer[range]
            }
            buffer.removeFirst(consumed)
            if event == .needMore { break }
            switch event {
            case .head(let head):
                #expect(parser.isInBody)
                parsed.heads.append(head)
                parsed.bodies.append([])
            case .body:
                #expect(parser.bodyBytesSoFar == parsed.bodies[parsed.bodies.count - 1].count)
            case .end:
                #expect(!parser.isInBody)
                parsed.ends += 1
            case .needMore:
                break
            }
        }
    } while fed < input.count
    try parser.finish()
    return parsed
}

private func parse(_ text: String, pieceSize: Int? = nil, limits: HTTPParser.Limits = .init()) throws(HTTPParseError)
    -> Parsed
{
    try parse(Array(text.utf8), pieceSize: pieceSize, limits: limits)
}

/// The status `input` is refused with, fed whole and byte by byte (which must agree).
private func refusal(_ input: [UInt8], limits: HTTPParser.Limits = .init()) -> Int? {
    var statuses: [Int?] = []
    for pieceSize in [nil, 1] {
        do {
            _ = try parse(input, pieceSize: pieceSize, limits: limits)
            statuses.append(nil)
        } catch {
            statuses.append(error.status.code)
        }
    }
    #expect(statuses[0] == statuses[1], "whole and byte-by-byte feeding disagree")
    return statuses[0]
}

private func refusal(_ text: String, limits: HTTPParser.Limits = .init()) -> Int? {
    refusal(Array(text.utf8), limits: limits)
}

// MARK: - Ordinary requests

@Suite struct HTTPParserTests {
    @Test func simpleGet() throws {
        let parsed = try parse("GET /hello?name=kith HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
        let head = try #require(parsed.heads.first)
        #expect(head.method == .get)
        #expect(head.target == "/hello?name=kith")
        #expect(head.path == "/hello")
        #expect(head.query == "name=kith")
        #expect(head.minorVersion == 1)
        #expect(head.framing == BodyFraming.none)
        #expect(head.keepAlive)
        #expect(!head.expectsContinue)
        #expect(head.headers["host"] == "example.com")
        #expect(head.headers.fields.map(\.name) == ["Host", "Accept"])
        #expect(parsed.ends == 1)
    }

    @Test func headWithoutBodyEndsOnTheNextCallConsumingNothing() throws {
        let input = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        var parser = HTTPParser()
        let first = try parser.parse(input)
        guard case .head = first.event else {
            Issue.record("expected a head")
            return
        }
        #expect(first.consumed == input.count)
        #expect(parser.isInBody)
        #expect(try parser.parse([]) == (.end, 0))
        #expect(!parser.isInBody)
        #expect(try parser.parse([]) == (.needMore, 0))
        try parser.finish()
    }

    @Test func emptyQueryAndEncodedPath() throws {
        let head = try #require(try parse("GET /a%20b? HTTP/1.1\r\nHost: a\r\n\r\n").heads.first)
        #expect(head.path == "/a%20b")
        #expect(head.query == "")
    }

    @Test func postWithContentLength() throws {
        let parsed = try parse("POST /form HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world")
        #expect(parsed.heads.first?.framing == .length(11))
        #expect(parsed.bodies == [Array("hello world".utf8)])
        #expect(parsed.ends == 1)
    }

    @Test func zeroContentLengthIsLengthZeroAndEndsAtOnce() throws {
        let parsed = try parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")
        #expect(parsed.heads.first?.framing == .length(0))
        #expect(parsed.bodies == [[]])
        #expect(parsed.ends == 1)
    }

    @Test func leadingZerosInContentLength() throws {
        #expect(try parse("PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 003\r\n\r\nabc").bodies == [Array("abc".utf8)])
    }

    @Test func chunkedWithExtensionsAndTrailers() throws {
        let input =
            "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value;flag\r\nhello\r\n"
            + "6 ; quoted=\"a \\\"b\\\" c\"\r\n world\r\n"
            + "000\r\nChecksum: abc\r\nOther: x\r\n\r\n"
        for pieceSize in [nil, 1, 3] {
            let parsed = try parse(input, pieceSize: pieceSize)
            #expect(parsed.heads.first?.framing == .chunked)
            #expect(parsed.bodies == [Array("hello world".utf8)])
            #expect(parsed.ends == 1)
        }
    }

    @Test func chunkedBodyRangesPointIntoTheBuffer() throws {
        let input = Array("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n".utf8)
        var parser = HTTPParser()
        let head = try parser.parse(input)
        let rest = Array(input[head.consumed...])
        let body = try parser.parse(rest)
        #expect(body.event == .body(3..<6))
        #expect(body.consumed == 6)
        #expect(parser.bodyBytesSoFar == 3)
        let tail = Array(rest[body.consumed...])
        #expect(try parser.parse(tail) == (.end, tail.count))
    }

    @Test func threePipelinedRequestsInOneBuffer() throws {
        let input =
            "GET /one HTTP/1.1\r\nHost: a\r\n\r\n"
            + "POST /two HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
            + "PUT /three HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
        for pieceSize in [nil, 1, 7] {
            let parsed = try parse(input, pieceSize: pieceSize)
            #expect(parsed.heads.map(\.path) == ["/one", "/two", "/three"])
            #expect(parsed.bodies == [[], Array("abc".utf8), Array("xy".utf8)])
            #expect(parsed.ends == 3)
        }
    }

    @Test func byteAtATimeGivesTheSameHead() throws {
        let input =
            "POST /p?q=1 HTTP/1.1\r\nHost: example.com:8080\r\nX-Long: \(String(repeating: "v", count: 300))\r\n"
            + "Content-Length: 5\r\nExpect: 100-continue\r\n\r\n12345"
        let whole = try parse(input)
        let trickled = try parse(input, pieceSize: 1)
        #expect(whole.heads.count == 1 && trickled.heads.count == 1)
        #expect(HTTPParser.Event.head(whole.heads[0]) == .head(trickled.heads[0]))
        #expect(trickled.bodies == [Array("12345".utf8)])
    }

    @Test func emptyLinesBeforeTheRequestLineAreIgnored() throws {
        let parsed = try parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n\r\n")
        #expect(parsed.ends == 1)
    }

    @Test func finishWhenIdleIsFine() throws {
        let parser = HTTPParser()
        try parser.finish()
    }

    @Test func unknownTokenMethodsAreLeftToTheRouter() throws {
        #expect(try parse("PURGE /x HTTP/1.1\r\nHost: a\r\n\r\n").heads.first?.method.rawValue == "PURGE")
        #expect(try parse("get /x HTTP/1.1\r\nHost: a\r\n\r\n").heads.first?.method.rawValue == "get")
    }

    @Test func http10WithoutHost() throws {
        let head = try #require(try parse("GET / HTTP/1.0\r\n\r\n").heads.first)
        #expect(head.minorVersion == 0)
        #expect(!head.keepAlive)
    }

    @Test func connectionDefaults() throws {
        func keepAlive(_ version: String, _ connection: String?) throws -> Bool? {
            let field = connection.map { "Connection: \($0)\r\n" } ?? ""
            return try parse("GET / HTTP/\(version)\r\nHost: a\r\n\(field)\r\n").heads.first?.keepAlive
        }
        #expect(try keepAlive("1.1", nil) == true)
        #expect(try keepAlive("1.1", "close") == false)
        #expect(try keepAlive("1.1", "Upgrade, CLOSE") == false)
        #expect(try keepAlive("1.1", "keep-alive") == true)
        #expect(try keepAlive("1.0", nil) == false)
        #expect(try keepAlive("1.0", "Keep-Alive") == true)
        #expect(try keepAlive("1.0", "keep-alive, close") == false)
    }

    @Test func expectContinue() throws {
        #expect(
            try parse("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nx").heads.first?
                .expectsContinue == true)
        // RFC 9110 §10.1.1: a 100-continue expectation in HTTP/1.0 is ignored.
        #expect(
            try parse("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx").heads.first?
                .expectsContinue == false)
        #expect(refusal("POST / HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\n\r\n") == 417)
    }

    @Test func absoluteFormTargets() throws {
        func head(_ target: String) throws -> RequestHead? {
            try parse("GET \(target) HTTP/1.1\r\nHost: ignored\r\n\r\n").heads.first
        }
        let full = try #require(try head("http://example.com:8080/a/b?x=1&y=2"))
        #expect(full.target == "http://example.com:8080/a/b?x=1&y=2")
        #expect(full.path == "/a/b")
        #expect(full.query == "x=1&y=2")
        let bare = try #require(try head("HTTPS://example.com"))
        #expect(bare.path == "/")
        #expect(bare.query == nil)
        let queryOnly = try #require(try head("http://example.com?q"))
        #expect(queryOnly.path == "/")
        #expect(queryOnly.query == "q")
        #expect(refusal("GET http://user:pass@example.com/ HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(refusal("GET ftp://example.com/ HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(refusal("GET http:///path HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    }

    @Test func asteriskAndAuthorityForms() throws {
        let options = try #require(try parse("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n").heads.first)
        #expect(options.path == "*")
        #expect(refusal("GET * HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        let connect = try #require(
            try parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n").heads.first)
        #expect(connect.target == "example.com:443")
        #expect(connect.path == "")
        #expect(refusal("CONNECT example.com HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(refusal("CONNECT /path HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(refusal("GET example.com:443 HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    }

    @Test func obsTextInHeaderValuesIsAccepted() throws {
        let input: [UInt8] =
            Array("GET / HTTP/1.1\r\nHost: a\r\nX-Name: D".utf8) + [0xC3, 0xBC, 0xFF] + Array("!\r\n\r\n".utf8)
        let head = try #require(try parse(input).heads.first)
        #expect(head.headers["x-name"]?.hasPrefix("Dü") == true)
    }

    @Test func headerValuesAreTrimmed() throws {
        let head = try #require(
            try parse("GET / HTTP/1.1\r\nHost:a\r\nX:  \t spaced out \t \r\nEmpty:\r\n\r\n").heads.first)
        #expect(head.headers["x"] == "spaced out")
        #expect(head.headers["empty"] == "")
        #expect(head.headers["host"] == "a")
    }

    @Test func hostForms() throws {
        for host in ["example.com", "example.com:80", "[::1]:8080", "127.0.0.1", "xn--bcher-kva.example", ""] {
            #expect(throws: Never.self, "Host: \(host)") { try parse("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n") }
        }
        for host in ["exa mple.com", "example.com:http", "user@example.com", "[::1", "a/b"] {
            #expect(refusal("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n") == 400, "Host: \(host)")
        }
    }

    @Test func trailersMayBeLargeButNotHuge() throws {
        let trailer = "X-Trailer: \(String(repeating: "t", count: 100))\r\n"
        let ok = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\(trailer)\r\n"
        #expect(try parse(ok).ends == 1)
        let tooMany = String(repeating: trailer, count: 200)
        #expect(refusal("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\(tooMany)\r\n") == 431)
    }

    @Test func limitsAreConfigurable() throws {
        let limits = HTTPParser.Limits(maxHeadBytes: 64, maxHeaderCount: 2, maxTargetBytes: 10)
        #expect(try parse("GET /123456789 HTTP/1.1\r\nHost: a\r\nB: c\r\n\r\n", limits: limits).ends == 1)
        #expect(refusal("GET /0123456789 HTTP/1.1\r\nHost: a\r\n\r\n", limits: limits) == 414)
        #expect(refusal("GET / HTTP/1.1\r\nHost: a\r\nB: c\r\nD: e\r\n\r\n", limits: limits) == 431)
        #expect(
            refusal("GET / HTTP/1.1\r\nHost: a\r\nB: \(String(repeating: "c", count: 40))\r\n\r\n", limits: limits)
                == 431)
    }
}

// MARK: - Hostile and malformed requests

@Suite struct HTTPParserRejectionTests {
    /// A request that must be refused, named for the test report.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var request: String
        var status: Int
        var testDescription: String { name }

        init(_ name: String, _ request: String, _ status: Int) {
            self.name = name
            self.request = request
            self.status = status
        }
    }

    /// Heads that the body-framing cases below continue.
    static let chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
    static let length = "PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: "

    static let refusals: [Refusal] = [
        Refusal("NUL in a header value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n", 400),
        Refusal("NUL in a header name", "GET / HTTP/1.1\r\nHost: a\r\nX\0: b\r\n\r\n", 400),
        Refusal("NUL in the target", "GET /a\0 HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("bare CR in a header value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", 400),
        Refusal("bare CR ending a header line", "GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", 400),
        Refusal("bare CR ending the request line", "GET / HTTP/1.1\rHost: a\r\n\r\n", 400),
        Refusal("bare CR before the body", length + "3\r\n\rabc", 400),
        Refusal("bare LF ending a header line", "GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", 400),
        Refusal("bare LF ending the request line", "GET / HTTP/1.1\nHost: a\r\n\r\n", 400),
        Refusal("bare LF ending the head", "GET / HTTP/1.1\r\nHost: a\r\n\n", 400),
        Refusal("obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n  c\r\n\r\n", 400),
        Refusal("whitespace before the first header", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", 400),
        Refusal("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        Refusal("tab before colon", "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", 400),
        Refusal("empty header name", "GET / HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n", 400),
        Refusal("header line without colon", "GET / HTTP/1.1\r\nHost: a\r\nnocolon\r\n\r\n", 400),
        Refusal("separator in header name", "GET / HTTP/1.1\r\nHost: a\r\nFo@: b\r\n\r\n", 400),
        Refusal("DEL in header value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{7F}\r\n\r\n", 400),
        Refusal("overflowing Content-Length", length + "99999999999999999999999\r\n\r\n", 400),
        Refusal("Content-Length above 2^53", length + "9007199254740993\r\n\r\n", 400),
        Refusal("signed Content-Length +5", length + "+5\r\n\r\nabcde", 400),
        Refusal("negative Content-Length", length + "-1\r\n\r\n", 400),
        Refusal("empty Content-Length", "PUT / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", 400),
        Refusal("Content-Length list", length + "5, 5\r\n\r\nabcde", 400),
        Refusal("Content-Length with inner space", length + "1 2\r\n\r\n", 400),
        Refusal("hex Content-Length", length + "0x5\r\n\r\n", 400),
        Refusal("duplicate equal Content-Length", length + "5\r\ncontent-length: 5\r\n\r\nabcde", 400),
        Refusal(
            "Content-Length and Transfer-Encoding",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400
        ),
        Refusal(
            "Transfer-Encoding and Content-Length",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 400
        ),
        Refusal(
            "TE gzip, chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
        Refusal(
            "TE gzip then chunked on two lines",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501
        ),
        Refusal("TE chunked, gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
        Refusal(
            "TE chunked then gzip on two lines",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", 400
        ),
        Refusal(
            "TE chunked twice", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
            400),
        Refusal("TE identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", 400),
        Refusal("TE chunkedchunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunkedchunked\r\n\r\n", 400),
        Refusal(
            "TE chunked with a parameter", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked;x=1\r\n\r\n", 400),
        Refusal("empty TE", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n", 400),
        Refusal("TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        Refusal("missing Host on HTTP/1.1", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400),
        Refusal("two Host headers", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400),
        Refusal("HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        Refusal("HTTP/1.2", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", 505),
        Refusal("HTTP/0.9 style request line", "GET /\r\n\r\n", 400),
        Refusal("lowercase version", "GET / http/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("version with trailing space", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400),
        Refusal("version garbage", "GET / HTTP/1.1x\r\nHost: a\r\n\r\n", 400),
        Refusal("RTSP", "OPTIONS / RTSP/1.0\r\nHost: a\r\n\r\n", 400),
        Refusal("two spaces after method", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("space in target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("tab in target", "GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("fragment in target", "GET /page#section HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("non-ASCII in target", "GET /caf\u{E9} HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("relative target", "GET page HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("method with a separator", "GE(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("request line starting with a space", " GET / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        Refusal("chunk size overflow", chunked + "FFFFFFFFFFFFFFFFFF\r\nx\r\n0\r\n\r\n", 400),
        Refusal("sixteen hex digits beyond Int", chunked + "FFFFFFFFFFFFFFFF\r\nx\r\n0\r\n\r\n", 400),
        Refusal("empty chunk size", chunked + "\r\nx\r\n0\r\n\r\n", 400),
        Refusal("signed chunk size", chunked + "+1\r\nx\r\n0\r\n\r\n", 400),
        Refusal("space after chunk size", chunked + "1 \r\nx\r\n0\r\n\r\n", 400),
        Refusal("empty chunk extension", chunked + "1;\r\nx\r\n0\r\n\r\n", 400),
        Refusal("unterminated quoted chunk extension", chunked + "1;a=\"b\r\nx\r\n0\r\n\r\n", 400),
        Refusal("control character in chunk extension", chunked + "1;a=\"\u{1}\"\r\nx\r\n0\r\n\r\n", 400),
        Refusal("bare CR in chunk header", chunked + "1\r;a\r\nx\r\n0\r\n\r\n", 400),
        Refusal("bare LF after chunk size", chunked + "1\nx\r\n0\r\n\r\n", 400),
        Refusal("chunk data longer than its size", chunked + "1\r\nxy\r\n0\r\n\r\n", 400),
        Refusal("chunk data followed by bare LF", chunked + "1\r\nx\n0\r\n\r\n", 400),
        Refusal("obs-fold in trailers", chunked + "0\r\nX: a\r\n b\r\n\r\n", 400),
        Refusal("invalid trailer name", chunked + "0\r\nX Y: a\r\n\r\n", 400),
    ]

    @Test(arguments: refusals)
    func refused(_ example: Refusal) {
        #expect(refusal(example.request) == example.status)
    }

    @Test func bareCRIsRefusedBeforeItsLineEnds() {
        for pieceSize in [nil, 1] {
            var parser = HTTPParser()
            let input = Array("GET / HTTP/1.1\r\nHost: a\r\nX: a\rb".utf8)
            var status: Int?
            var fed = 0
            while status == nil, fed < input.count {
                fed = min(fed + (pieceSize ?? input.count), input.count)
                do {
                    #expect(try parser.parse(Array(input[..<fed])) == (.needMore, 0))
                } catch {
                    status = error.status.code
                }
            }
            #expect(status == 400)
        }
        // A CR that is the last byte so far may still be followed by its LF.
        var parser = HTTPParser()
        #expect(throws: Never.self) { try parser.parse(Array("GET / HTTP/1.1\r".utf8)) }
    }

    @Test func chunkHeaderLineIsLimited() {
        let extensions = String(repeating: ";a=b", count: 1200)
        #expect(
            refusal("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\(extensions)\r\nx\r\n0\r\n\r\n")
                == 400)
    }

    @Test func oversizedHeadIsRefusedBeforeItEnds() {
        var parser = HTTPParser()
        var input = Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8)
        let filler = Array("X-Filler: \(String(repeating: "f", count: 90))\r\n".utf8)
        var status: Int?
        // No CRLFCRLF is ever sent: the limit alone must end this.
        while input.count < 64 * 1024, status == nil {
            input += filler
            do {
                #expect(try parser.parse(input) == (.needMore, 0))
            } catch {
                status = error.status.code
            }
        }
        #expect(status == 431)
        #expect(input.count <= 16 * 1024 + filler.count)
    }

    @Test func tooManyHeaders() {
        let fields = (0..<101).map { "X-\($0): v\r\n" }.joined()
        #expect(refusal("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n") == 431)
        let allowed = (0..<99).map { "X-\($0): v\r\n" }.joined()
        #expect(refusal("GET / HTTP/1.1\r\nHost: a\r\n\(allowed)\r\n") == nil)
    }

    @Test func longTarget() {
        let path = "/" + String(repeating: "a", count: 8 * 1024)
        #expect(refusal("GET \(path) HTTP/1.1\r\nHost: a\r\n\r\n") == 414)
        // A target longer than the whole head limit, still arriving, is also 414.
        var parser = HTTPParser()
        let input = Array("GET /\(String(repeating: "a", count: 20 * 1024))".utf8)
        do {
            _ = try parser.parse(input)
            Issue.record("expected 414")
        } catch {
            #expect(error.status == .uriTooLong)
        }
        let fits = "/" + String(repeating: "a", count: 8 * 1024 - 1)
        #expect(refusal("GET \(fits) HTTP/1.1\r\nHost: a\r\n\r\n") == nil)
    }

    @Test func finishInTheMiddleOfAMessage() throws {
        let cases = [
            "GET / HTTP/1.1\r\nHost: a\r\n",
            "GET / HTT",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhalf",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nTrailer: x\r\n",
        ]
        for input in cases {
            #expect(refusal(input) == 400, "\(input)")
        }
    }

    @Test func errorsCarryAnExplanation() {
        var parser = HTTPParser()
        let input = Array("PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n".utf8)
        do {
            _ = try parser.parse(input)
            Issue.record("expected an error")
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.message == "The request's Content-Length is not a number.")
        }
    }
}

// MARK: - Character classes

@Suite struct CharacterClassTests {
    private static func bitmap(_ members: String) -> (UInt64, UInt64) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        for byte in members.utf8 {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
        return (low, high)
    }

    private static let alphaDigit = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

    @Test func tcharMatchesRFC9110() {
        let (low, high) = Self.bitmap("!#$%&'*+-.^_`|~" + Self.alphaDigit)
        #expect(low == HTTPParser.CharacterClass.tcharLow)
        #expect(high == HTTPParser.CharacterClass.tcharHigh)
        for byte in UInt8(128)...255 { #expect(!HTTPParser.CharacterClass.isTchar(byte)) }
    }

    @Test func regNameMatchesRFC3986() {
        let (low, high) = Self.bitmap("-._~" + "!$&'()*+,;=" + Self.alphaDigit)
        #expect(low == HTTPParser.CharacterClass.regNameLow)
        #expect(high == HTTPParser.CharacterClass.regNameHigh)
    }

    @Test func fieldContent() {
        for byte in UInt8(0)...255 {
            let expected = byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
            #expect(HTTPParser.CharacterClass.isFieldContent(byte) == expected)
        }
    }

    @Test func hexDigits() {
        for byte in UInt8(0)...255 {
            let expected = Int(String(UnicodeScalar(byte)), radix: 16)
            #expect(HTTPParser.CharacterClass.hexValue(byte) == expected, "\(byte)")
        }
    }
}
