import KithHTTP

/// The request parser, fed the way a connection feeds it: reads of arbitrary
/// size appended to a buffer that drops what was consumed.
///
/// Input: a control byte, then what the client sent. The control byte picks
/// the read sizes and, with its top bit, limits small enough for the fuzzer to
/// reach. The same bytes in one read and in many must give the same heads,
/// bodies and status: a parser that answers differently depending on how TCP
/// cut the stream is a smuggling risk. The error's wording may differ (a line
/// with a stray CR and no CRLF is named for whichever the parser saw first).
enum HTTPParserHarness: FuzzHarness {
    static let name = "http-parser"

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let (control, request) = input.controlByteAndRest else { return }
        let limits =
            control & 0x80 != 0
            ? HTTPParser.Limits(maxHeadBytes: 512, maxHeaderCount: 8, maxTargetBytes: 64) : HTTPParser.Limits()
        let whole = Transcript(request, limits: limits, reads: .whole)
        let split = Transcript(request, limits: limits, reads: ReadSizes(seed: control))
        require(whole == split, "one read gave \(whole), split reads gave \(split)")
    }

    /// What the parser reported for a whole stream, with body bytes joined per
    /// message since where a read ends decides how they are cut.
    struct Transcript: Equatable, CustomStringConvertible {
        enum Step: Equatable {
            case event(HTTPParser.Event)
            case body([UInt8])
        }

        var steps: [Step] = []
        var error: HTTPParseError?

        static func == (a: Transcript, b: Transcript) -> Bool {
            a.steps == b.steps && a.error?.status == b.error?.status
        }

        init(_ stream: UnsafeRawBufferPointer, limits: HTTPParser.Limits, reads: ReadSizes) {
            var parser = HTTPParser(limits: limits)
            var reads = reads
            var buffer: [UInt8] = []
            var body: [UInt8] = []
            var offset = 0
            var calls = 0
            do {
                while offset < stream.count {
                    let count = min(reads.next()!, stream.count - offset)
                    buffer += stream[offset..<offset + count]
                    offset += count
                    while true {
                        calls += 1
                        // Each call consumes a byte, ends a message or asks for more.
                        require(calls <= 3 * stream.count + 3, "the parser stopped making progress")
                        let (event, consumed) = try buffer.withUnsafeBytes { try parser.parse($0) }
                        require(consumed <= buffer.count, "consumed \(consumed) of \(buffer.count) bytes")
                        switch event {
                        case .needMore:
                            break
                        case .head:
                            steps.append(.event(event))
                        case .body(let range):
                            require(
                                range.lowerBound >= 0 && range.upperBound <= consumed,
                                "body \(range) outside the \(consumed) consumed bytes")
                            body += buffer[range]
                        case .end:
                            steps.append(.body(body))
                            steps.append(.event(event))
                            body = []
                        }
                        buffer.removeFirst(consumed)
                        if event == .needMore { break }
                    }
                }
                try parser.finish()
            } catch let parseError as HTTPParseError {
                error = parseError
            } catch {
                fatalError("unexpected error \(error)")
            }
        }

        var description: String {
            let shown = steps.map { step -> String in
                switch step {
                case .event(.head(let head)): "head \(head.method.rawValue) \(head.target) \(head.framing)"
                case .event(let event): "\(event)"
                case .body(let bytes): "body of \(bytes.count) bytes"
                }
            }
            return "[" + shown.joined(separator: ", ") + "] then " + (error.map { "\($0)" } ?? "clean close")
        }
    }
}
