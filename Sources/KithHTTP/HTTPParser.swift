import Glibc

/// An incremental HTTP/1.1 request parser (RFC 9112, with the field rules of RFC 9110).
///
/// The parser owns no buffer. The caller keeps the unconsumed input and hands it back on
/// every call, dropping whatever prefix the previous call reported as consumed:
///
/// - While a head is arriving, the parser answers `.needMore` with nothing consumed and
///   remembers how far it has already looked, so each byte is examined once even when the
///   head trickles in. Complete lines are validated as soon as they arrive, so most
///   malformed heads are refused before the blank line that ends them.
/// - Bodies are consumed as they arrive. `.body(range)` names bytes of the buffer just
///   given; chunk framing never appears in those ranges.
/// - A message always ends with a separate `.end`. When the head declares no body
///   (`framing` is `.none` or `.length(0)`) or the last body bytes were just delivered,
///   the next call returns `.end` without consuming anything, even with an empty buffer.
///
/// The grammar is deliberately stricter than many parsers where RFC 9112 permits it:
/// lines must end in CRLF, obs-fold is refused, a request may not carry both
/// Content-Length and Transfer-Encoding, and duplicate or list-valued Content-Length is
/// refused. Those are the ambiguities request smuggling relies on.
public struct HTTPParser: Sendable {
    public struct Limits: Sendable {
        /// The request line and header section, CRLFs included; more is answered with 431.
        public var maxHeadBytes: Int = 16 * 1024
        /// More header fields (or trailer fields) than this is answered with 431.
        public var maxHeaderCount: Int = 100
        /// A longer request target is answered with 414.
        public var maxTargetBytes: Int = 8 * 1024

        public init(maxHeadBytes: Int = 16 * 1024, maxHeaderCount: Int = 100, maxTargetBytes: Int = 8 * 1024) {
            self.maxHeadBytes = maxHeadBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxTargetBytes = maxTargetBytes
        }
    }

    public enum Event: Sendable, Equatable {
        /// Every byte given was consumed or is being held; feed more.
        case needMore
        /// A complete head; its body, if any, follows.
        case head(RequestHead)
        /// These indices of the buffer just given are body bytes, already de-chunked.
        case body(Range<Int>)
        /// The message is complete; the parser is ready for the next one.
        case end

        public static func == (lhs: Event, rhs: Event) -> Bool {
            switch (lhs, rhs) {
            case (.needMore, .needMore), (.end, .end):
                return true
            case (.body(let a), .body(let b)):
                return a == b
            case (.head(let a), .head(let b)):
                // RequestHead is not Equatable (its fields are tuples), so compare it here.
                let sameFields = a.headers.fields.elementsEqual(b.headers.fields) {
                    $0.name == $1.name && $0.value == $1.value
                }
                return sameFields && a.method == b.method && a.target == b.target && a.path == b.path
                    && a.query == b.query && a.minorVersion == b.minorVersion && a.framing == b.framing
                    && a.keepAlive == b.keepAlive && a.expectsContinue == b.expectsContinue
            default:
                return false
            }
        }
    }

    public let limits: Limits

    /// Bytes of body delivered so far in the current message (de-chunked).
    public private(set) var bodyBytesSoFar = 0

    private var phase = Phase.head
    private var head = HeadState()
    /// How far past the start of a held chunk or trailer line the search for its LF got.
    private var lineScanned = 0
    private var trailerBytes = 0
    private var trailerCount = 0

    /// A chunk-size line with its extensions is tiny in practice; anything this long is abuse.
    static let maxChunkHeaderBytes = 4096

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// True between a `.head` and its `.end`.
    public var isInBody: Bool { phase != .head }

    /// Parses from the start of `bytes`. Returns one event and how many bytes of `bytes`
    /// were consumed; the caller drops that prefix and calls again with the rest plus any
    /// newly read bytes.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> (event: Event, consumed: Int)
    {
        var i = 0
        while true {
            switch phase {
            case .head:
                return try parseHead(bytes)

            case .messageEnd:
                endMessage()
                return (.end, i)

            case .fixedBody(let remaining):
                guard i < bytes.count else { return (.needMore, i) }
                let n = min(remaining, bytes.count - i)
                bodyBytesSoFar += n
                phase = n == remaining ? .messageEnd : .fixedBody(remaining: remaining - n)
                return (.body(i..<(i + n)), i + n)

            case .chunkHeader:
                guard
                    let lf = try nextHeldLine(
                        bytes, from: i, maxBytes: Self.maxChunkHeaderBytes, tooLong: .chunkHeaderTooLong)
                else { return (.needMore, i) }
                let size = try Self.parseChunkHeader(bytes, from: i, to: lf - 1)
                i = lf + 1
                phase = size == 0 ? .trailers : .chunkData(remaining: size)

            case .chunkData(let remaining):
                guard i < bytes.count else { return (.needMore, i) }
                let n = min(remaining, bytes.count - i)
                bodyBytesSoFar += n
                phase = n == remaining ? .chunkDataCR : .chunkData(remaining: remaining - n)
                return (.body(i..<(i + n)), i + n)

            case .chunkDataCR:
                guard i < bytes.count else { return (.needMore, i) }
                guard bytes[i] == ASCII.cr else { throw .chunkDataUnterminated }
                i += 1
                phase = .chunkDataLF

            case .chunkDataLF:
                guard i < bytes.count else { return (.needMore, i) }
                guard bytes[i] == ASCII.lf else { throw .chunkDataUnterminated }
                i += 1
                phase = .chunkHeader

            case .trailers:
                let budget = limits.maxHeadBytes - trailerBytes
                guard let lf = try nextHeldLine(bytes, from: i, maxBytes: budget, tooLong: .trailersTooLarge)
                else { return (.needMore, i) }
                trailerBytes += lf + 1 - i
                let end = lf - 1
                if end == i {
                    endMessage()
                    return (.end, lf + 1)
                }
                // Trailers are validated like header fields so a malformed one cannot slip
                // through, but they are discarded: nothing in Kith relies on them.
                _ = try Self.scanField(bytes, from: i, to: end)
                trailerCount += 1
                if trailerCount > limits.maxHeaderCount { throw .trailersTooLarge }
                i = lf + 1
            }
        }
    }

    /// Call when the peer closed its side: an incomplete message is then an error.
    public func finish() throws(HTTPParseError) {
        switch phase {
        case .head:
            if head.requestLine != nil || head.buffered > head.lineStart { throw .truncatedHead }
        case .messageEnd:
            return
        case .fixedBody, .chunkHeader, .chunkData, .chunkDataCR, .chunkDataLF, .trailers:
            throw .truncatedBody
        }
    }

    private mutating func endMessage() {
        phase = .head
        head = HeadState()
        lineScanned = 0
        trailerBytes = 0
        trailerCount = 0
    }
}

// MARK: - State

extension HTTPParser {
    private enum Phase: Sendable, Equatable {
        case head
        case fixedBody(remaining: Int)
        case chunkHeader
        case chunkData(remaining: Int)
        case chunkDataCR
        case chunkDataLF
        case trailers
        /// The body is complete (or there is none); `.end` is reported next.
        case messageEnd
    }

    private struct RequestLine: Sendable {
        var method: HTTPMethod
        var target: String
        var path: String
        var query: String?
        var minorVersion: Int
    }

    /// Everything learned from the lines of a head that has not been completed yet. Offsets
    /// are relative to the start of the buffer, which does not move while the head is held.
    private struct HeadState: Sendable {
        /// Where the first line not yet processed begins.
        var lineStart = 0
        /// How far the search for the next LF got.
        var scanned = 0
        /// The buffer size at the last call, so `finish()` can tell whether bytes are pending.
        var buffered = 0
        var requestLine: RequestLine?
        var headers = HTTPHeaders()
        var contentLength: Int?
        var hostCount = 0
        var codings = TransferCodings()
        var connectionClose = false
        var connectionKeepAlive = false
        var expectsContinue = false
        var unsupportedExpectation = false
    }

    /// The Transfer-Encoding list, accumulated over every field line that carries it.
    private struct TransferCodings: Sendable {
        var present = false
        var chunkedCount = 0
        var chunkedIsLast = false
        var others = false
    }
}

// MARK: - Head

extension HTTPParser {
    private mutating func parseHead(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> (
        event: Event, consumed: Int
    ) {
        assert(bytes.count >= head.scanned, "the buffer lost bytes of a head that was being held")
        head.buffered = bytes.count
        let window = min(bytes.count, limits.maxHeadBytes)
        while let lf = Self.findLF(bytes, from: head.scanned, to: window) {
            let start = head.lineStart
            guard lf > start, bytes[lf - 1] == ASCII.cr else { throw .bareLF }
            let end = lf - 1
            head.lineStart = lf + 1
            head.scanned = lf + 1
            if end == start {
                // RFC 9112 §2.2: empty lines before the request line are ignored.
                if head.requestLine == nil { continue }
                let requestHead = try completeHead()
                return (.head(requestHead), lf + 1)
            }
            do throws(HTTPParseError) {
                if head.requestLine == nil {
                    head.requestLine = try parseRequestLine(bytes, from: start, to: end)
                } else {
                    try addField(bytes, from: start, to: end)
                }
            } catch {
                // A stray CR is named as such however the bytes arrived: had the line come
                // in pieces, the check below would have caught it before the line ended.
                throw Self.find(bytes, ASCII.cr, from: start, to: end) != nil ? .bareCR : error
            }
        }
        // No LF in bytes[scanned..<window], so a CR there with a byte after it is a bare CR.
        // Refusing it now spares waiting for a line end that may never come. A CR left at the
        // end of the previous call is decided now; one at the very end waits for its LF.
        let crSearchStart = max(head.scanned - 1, head.lineStart)
        if Self.find(bytes, ASCII.cr, from: crSearchStart, to: window - 1) != nil { throw .bareCR }
        head.scanned = window
        if bytes.count > limits.maxHeadBytes { throw oversizedHeadError(bytes) }
        return (.needMore, 0)
    }

    /// The head outgrew its limit. A request line that is still arriving is almost always a
    /// huge target, which deserves 414 rather than 431.
    private func oversizedHeadError(_ bytes: UnsafeRawBufferPointer) -> HTTPParseError {
        guard head.requestLine == nil else { return .headTooLarge }
        let end = min(bytes.count, limits.maxHeadBytes)
        var i = head.lineStart
        while i < end, bytes[i] != ASCII.space { i += 1 }
        let targetStart = i + 1
        i = targetStart
        while i < end, bytes[i] != ASCII.space { i += 1 }
        return i - targetStart > limits.maxTargetBytes ? .targetTooLong : .headTooLarge
    }

    private func parseRequestLine(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws(HTTPParseError)
        -> RequestLine
    {
        var i = start
        while i < end, CharacterClass.isTchar(bytes[i]) { i += 1 }
        guard i > start else { throw .invalidMethod }
        guard i < end, bytes[i] == ASCII.space else { throw .malformedRequestLine }
        let methodEnd = i

        let targetStart = i + 1
        i = targetStart
        while i < end, bytes[i] > ASCII.space, bytes[i] < ASCII.delete { i += 1 }
        let targetEnd = i
        if targetEnd - targetStart > limits.maxTargetBytes { throw .targetTooLong }
        guard targetEnd > targetStart else { throw .malformedRequestLine }
        guard targetEnd < end else { throw .missingVersion }
        guard bytes[targetEnd] == ASCII.space else { throw .invalidTargetCharacter }

        let minorVersion = try Self.parseVersion(bytes, from: targetEnd + 1, to: end)
        let method = HTTPMethod(rawValue: Self.string(bytes, start, methodEnd))
        let target = try Self.parseTarget(bytes, from: targetStart, to: targetEnd, method: method)
        return RequestLine(
            method: method, target: target.whole, path: target.path, query: target.query, minorVersion: minorVersion)
    }

    /// `HTTP/1.0` or `HTTP/1.1`; another well-formed version is 505, anything else 400.
    private static func parseVersion(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int)
        throws(HTTPParseError)
        -> Int
    {
        guard end - start == 8, matches(bytes, start, "HTTP/"), CharacterClass.isDigit(bytes[start + 5]),
            bytes[start + 6] == ASCII.dot, CharacterClass.isDigit(bytes[start + 7])
        else { throw .malformedVersion }
        let major = bytes[start + 5] &- ASCII.zero
        let minor = bytes[start + 7] &- ASCII.zero
        guard major == 1, minor <= 1 else { throw .unsupportedVersion }
        return Int(minor)
    }

    private struct Target {
        var whole: String
        var path: String
        var query: String?
    }

    /// Sorts the target into one of the four forms of RFC 9112 §3.2. Every byte is already
    /// known to be visible ASCII.
    private static func parseTarget(
        _ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, method: HTTPMethod
    ) throws(HTTPParseError) -> Target {
        // A fragment is never sent (RFC 9110 §4.2.4); one here means a confused or hostile client.
        if find(bytes, ASCII.hash, from: start, to: end) != nil { throw .fragmentInTarget }
        let whole = string(bytes, start, end)

        if method.rawValue == "CONNECT" {
            guard isAuthority(bytes, from: start, to: end, requirePort: true) else { throw .invalidTarget }
            return Target(whole: whole, path: "", query: nil)
        }
        if bytes[start] == ASCII.slash {
            return split(bytes, pathStart: start, end: end, whole: whole, pathIsWhole: true)
        }
        if end - start == 1, bytes[start] == ASCII.asterisk {
            guard method == .options else { throw .asteriskWithoutOptions }
            return Target(whole: whole, path: whole, query: nil)
        }

        // absolute-form: only the http and https schemes mean anything to an origin server.
        var authorityStart = start
        if matchesIgnoringCase(bytes, start, end, "http://") {
            authorityStart = start + 7
        } else if matchesIgnoringCase(bytes, start, end, "https://") {
            authorityStart = start + 8
        } else {
            throw .invalidTarget
        }
        var authorityEnd = authorityStart
        while authorityEnd < end, bytes[authorityEnd] != ASCII.slash, bytes[authorityEnd] != ASCII.question {
            authorityEnd += 1
        }
        // userinfo is refused (RFC 9110 §4.2.4) by the host grammar, which has no `@`.
        guard authorityEnd > authorityStart,
            isAuthority(bytes, from: authorityStart, to: authorityEnd, requirePort: false)
        else { throw .invalidTarget }
        if authorityEnd < end, bytes[authorityEnd] == ASCII.slash {
            return split(bytes, pathStart: authorityEnd, end: end, whole: whole, pathIsWhole: false)
        }
        let query = authorityEnd < end ? string(bytes, authorityEnd + 1, end) : nil
        return Target(whole: whole, path: "/", query: query)
    }

    private static func split(
        _ bytes: UnsafeRawBufferPointer, pathStart start: Int, end: Int, whole: String, pathIsWhole: Bool
    ) -> Target {
        guard let question = find(bytes, ASCII.question, from: start, to: end) else {
            // Origin-form without a query is the common case; sharing the string saves a copy.
            return Target(whole: whole, path: pathIsWhole ? whole : string(bytes, start, end), query: nil)
        }
        return Target(whole: whole, path: string(bytes, start, question), query: string(bytes, question + 1, end))
    }

    /// `uri-host [":" port]` (RFC 9110 §7.2, RFC 3986 §3.2.2), used for Host and for the
    /// authority of absolute-form and authority-form targets.
    private static func isAuthority(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, requirePort: Bool)
        -> Bool
    {
        var i = start
        if i < end, bytes[i] == ASCII.leftBracket {
            i += 1
            let literalStart = i
            while i < end, bytes[i] != ASCII.rightBracket {
                guard CharacterClass.isRegName(bytes[i]) || bytes[i] == ASCII.colon else { return false }
                i += 1
            }
            guard i < end, i > literalStart else { return false }
            i += 1
        } else {
            while i < end, bytes[i] != ASCII.colon {
                if bytes[i] == ASCII.percent {
                    guard i + 2 < end, CharacterClass.isHexDigit(bytes[i + 1]), CharacterClass.isHexDigit(bytes[i + 2])
                    else { return false }
                    i += 3
                } else {
                    guard CharacterClass.isRegName(bytes[i]) else { return false }
                    i += 1
                }
            }
            if i == start { return start == end && !requirePort }
        }
        if i == end { return !requirePort }
        guard bytes[i] == ASCII.colon else { return false }
        i += 1
        let portStart = i
        while i < end, CharacterClass.isDigit(bytes[i]) { i += 1 }
        return i == end && (!requirePort || i > portStart)
    }

    private mutating func addField(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws(HTTPParseError)
    {
        let field = try Self.scanField(bytes, from: start, to: end)
        guard head.headers.count < limits.maxHeaderCount else { throw .tooManyHeaders }
        let name = start..<field.nameEnd
        let value = field.value

        // The fields that decide framing and connection handling are recognised here,
        // from the bytes, so that no other code has to re-parse them.
        switch name.count {
        case 4 where Self.equalsIgnoringCase(bytes, name, "host"):
            head.hostCount += 1
            guard head.hostCount == 1 else { throw .duplicateHost }
            guard Self.isAuthority(bytes, from: value.lowerBound, to: value.upperBound, requirePort: false)
            else { throw .invalidHost }
        case 6 where Self.equalsIgnoringCase(bytes, name, "expect"):
            if Self.equalsIgnoringCase(bytes, value, "100-continue") {
                head.expectsContinue = true
            } else {
                head.unsupportedExpectation = true
            }
        case 10 where Self.equalsIgnoringCase(bytes, name, "connection"):
            Self.forEachListElement(bytes, value) { element in
                if Self.equalsIgnoringCase(bytes, element, "close") {
                    head.connectionClose = true
                } else if Self.equalsIgnoringCase(bytes, element, "keep-alive") {
                    head.connectionKeepAlive = true
                }
            }
        case 14 where Self.equalsIgnoringCase(bytes, name, "content-length"):
            guard head.contentLength == nil else { throw .duplicateContentLength }
            head.contentLength = try Self.parseContentLength(bytes, value)
        case 17 where Self.equalsIgnoringCase(bytes, name, "transfer-encoding"):
            try addTransferCodings(bytes, value)
        default:
            break
        }

        head.headers.add(
            Self.string(bytes, start, field.nameEnd), Self.string(bytes, value.lowerBound, value.upperBound))
    }

    /// 1*DIGIT and nothing else: no sign, no list, no inner spaces.
    private static func parseContentLength(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) throws(HTTPParseError)
        -> Int
    {
        guard !value.isEmpty else { throw .invalidContentLength }
        var length = 0
        for i in value {
            let byte = bytes[i]
            guard CharacterClass.isDigit(byte) else { throw .invalidContentLength }
            length = length * 10 + Int(byte &- ASCII.zero)
            // Leading zeros are harmless; only the value is capped, well before Int overflows.
            guard length <= maxContentLength else { throw .contentLengthTooLarge }
        }
        return length
    }

    /// 2^53: far beyond any body Kith accepts, and far from where arithmetic on lengths overflows.
    static let maxContentLength = 1 << 53

    private mutating func addTransferCodings(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>)
        throws(HTTPParseError)
    {
        head.codings.present = true
        var malformed = false
        Self.forEachListElement(bytes, value) { element in
            var i = element.lowerBound
            while i < element.upperBound, CharacterClass.isTchar(bytes[i]) { i += 1 }
            if i == element.lowerBound {
                malformed = true
                return
            }
            if i < element.upperBound {
                // A coding with parameters: never `chunked`, which takes none.
                var j = i
                while j < element.upperBound, CharacterClass.isWhitespace(bytes[j]) { j += 1 }
                if j == element.upperBound || bytes[j] != ASCII.semicolon { malformed = true }
                head.codings.others = true
                head.codings.chunkedIsLast = false
            } else if Self.equalsIgnoringCase(bytes, element, "chunked") {
                head.codings.chunkedCount += 1
                head.codings.chunkedIsLast = true
            } else {
                head.codings.others = true
                head.codings.chunkedIsLast = false
            }
        }
        if malformed { throw .invalidTransferEncoding }
    }

    /// Applies the rules that need the whole head (RFC 9112 §3.2, §6.1, §6.3, §9.3; RFC 9110 §10.1.1).
    private mutating func completeHead() throws(HTTPParseError) -> RequestHead {
        guard let line = head.requestLine else { preconditionFailure("a head cannot end before its request line") }
        if line.minorVersion == 1, head.hostCount == 0 { throw .missingHost }

        let framing: BodyFraming
        if head.codings.present {
            if line.minorVersion == 0 { throw .transferEncodingInHTTP10 }
            if head.contentLength != nil { throw .lengthAndTransferEncoding }
            guard head.codings.chunkedIsLast, head.codings.chunkedCount == 1 else { throw .chunkedNotFinal }
            if head.codings.others { throw .unsupportedTransferCoding }
            framing = .chunked
        } else if let length = head.contentLength {
            framing = .length(length)
        } else {
            framing = .none
        }
        if head.unsupportedExpectation { throw .unsupportedExpectation }

        let keepAlive =
            line.minorVersion == 1 ? !head.connectionClose : head.connectionKeepAlive && !head.connectionClose
        let requestHead = RequestHead(
            method: line.method, target: line.target, path: line.path, query: line.query,
            minorVersion: line.minorVersion, headers: head.headers, framing: framing, keepAlive: keepAlive,
            // An HTTP/1.0 client cannot understand 100 Continue, so its expectation is ignored.
            expectsContinue: head.expectsContinue && line.minorVersion == 1)

        head = HeadState()
        bodyBytesSoFar = 0
        switch framing {
        case .chunked: phase = .chunkHeader
        case .length(let length) where length > 0: phase = .fixedBody(remaining: length)
        case .length, .none: phase = .messageEnd
        }
        return requestHead
    }
}

// MARK: - Field lines and chunk framing

extension HTTPParser {
    private struct FieldLine {
        var nameEnd: Int
        /// The value with surrounding whitespace trimmed.
        var value: Range<Int>
    }

    /// Validates `field-name ":" OWS field-value OWS` (RFC 9112 §5) in `bytes[start..<end]`,
    /// the line without its CRLF.
    private static func scanField(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws(HTTPParseError)
        -> FieldLine
    {
        // Also catches whitespace before the first field, which RFC 9112 §2.2 says to reject.
        if CharacterClass.isWhitespace(bytes[start]) { throw .obsFold }
        var i = start
        while i < end, CharacterClass.isTchar(bytes[i]) { i += 1 }
        guard i < end, bytes[i] == ASCII.colon else {
            if i < end, CharacterClass.isWhitespace(bytes[i]) { throw .whitespaceBeforeColon }
            throw .invalidFieldName
        }
        guard i > start else { throw .invalidFieldName }
        let nameEnd = i

        var valueStart = i + 1
        while valueStart < end, CharacterClass.isWhitespace(bytes[valueStart]) { valueStart += 1 }
        var valueEnd = end
        while valueEnd > valueStart, CharacterClass.isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        for j in valueStart..<valueEnd where !CharacterClass.isFieldContent(bytes[j]) {
            throw bytes[j] == ASCII.cr ? .bareCR : .invalidFieldValue
        }
        return FieldLine(nameEnd: nameEnd, value: valueStart..<valueEnd)
    }

    /// Finds the LF ending the line that starts at `start`, resuming where the previous call
    /// stopped if the line was held. Returns nil, holding the line, when it is incomplete.
    private mutating func nextHeldLine(
        _ bytes: UnsafeRawBufferPointer, from start: Int, maxBytes: Int, tooLong: HTTPParseError
    ) throws(HTTPParseError) -> Int? {
        guard let lf = Self.findLF(bytes, from: start + lineScanned, to: bytes.count) else {
            lineScanned = bytes.count - start
            if lineScanned >= maxBytes { throw tooLong }
            return nil
        }
        lineScanned = 0
        guard lf > start, bytes[lf - 1] == ASCII.cr else { throw .bareLF }
        if lf + 1 - start > maxBytes { throw tooLong }
        return lf
    }

    /// `chunk-size *chunk-ext` (RFC 9112 §7.1), without the CRLF. Extensions are validated
    /// and dropped.
    private static func parseChunkHeader(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int)
        throws(HTTPParseError)
        -> Int
    {
        var i = start
        var size = 0
        while i < end, let digit = CharacterClass.hexValue(bytes[i]) {
            guard i - start < 16, size <= Int.max >> 4 else { throw .chunkSizeTooLarge }
            size = size << 4 | digit
            i += 1
        }
        guard i > start else { throw .invalidChunkSize }

        // chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-value ] )
        while i < end {
            while i < end, CharacterClass.isWhitespace(bytes[i]) { i += 1 }
            guard i < end, bytes[i] == ASCII.semicolon else { throw .invalidChunkSize }
            i += 1
            while i < end, CharacterClass.isWhitespace(bytes[i]) { i += 1 }
            let nameStart = i
            while i < end, CharacterClass.isTchar(bytes[i]) { i += 1 }
            guard i > nameStart else { throw .invalidChunkExtension }
            var j = i
            while j < end, CharacterClass.isWhitespace(bytes[j]) { j += 1 }
            guard j < end, bytes[j] == ASCII.equals else { continue }
            i = j + 1
            while i < end, CharacterClass.isWhitespace(bytes[i]) { i += 1 }
            guard i < end else { throw .invalidChunkExtension }
            if bytes[i] == ASCII.quote {
                i = try skipQuotedString(bytes, from: i, to: end)
            } else {
                let valueStart = i
                while i < end, CharacterClass.isTchar(bytes[i]) { i += 1 }
                guard i > valueStart else { throw .invalidChunkExtension }
            }
        }
        return size
    }

    /// Returns the index after the closing quote of the quoted-string at `start` (RFC 9110 §5.6.4).
    private static func skipQuotedString(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int)
        throws(HTTPParseError)
        -> Int
    {
        var i = start + 1
        while i < end {
            let byte = bytes[i]
            if byte == ASCII.quote { return i + 1 }
            if byte == ASCII.backslash {
                guard i + 1 < end, CharacterClass.isFieldContent(bytes[i + 1]) else { throw .invalidChunkExtension }
                i += 2
            } else {
                guard CharacterClass.isFieldContent(byte) else { throw .invalidChunkExtension }
                i += 1
            }
        }
        throw .invalidChunkExtension
    }
}

// MARK: - Bytes

extension HTTPParser {
    private static func findLF(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        find(bytes, ASCII.lf, from: start, to: end)
    }

    private static func find(_ bytes: UnsafeRawBufferPointer, _ byte: UInt8, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = bytes.baseAddress else { return nil }
        guard let hit = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    private static func string(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    private static func matches(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - start >= count else { return false }
        let expected = literal.utf8Start
        for k in 0..<count where bytes[start + k] != expected[k] { return false }
        return true
    }

    /// Whether `bytes[start..<end]` begins with `literal`, ignoring ASCII case; `literal` is lowercase.
    private static func matchesIgnoringCase(
        _ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ literal: StaticString
    ) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - start >= count else { return false }
        let expected = literal.utf8Start
        for k in 0..<count where CharacterClass.lowercased(bytes[start + k]) != expected[k] { return false }
        return true
    }

    /// Whether `bytes[range]` is `literal`, ignoring ASCII case; `literal` is lowercase.
    private static func equalsIgnoringCase(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ literal: StaticString
    )
        -> Bool
    {
        range.count == literal.utf8CodeUnitCount
            && matchesIgnoringCase(bytes, range.lowerBound, range.upperBound, literal)
    }

    /// Calls `body` with each non-empty element of a comma-separated list (RFC 9110 §5.6.1),
    /// whitespace trimmed. Empty elements are skipped, as recipients must.
    private static func forEachListElement(
        _ bytes: UnsafeRawBufferPointer, _ value: Range<Int>, _ body: (Range<Int>) -> Void
    ) {
        var i = value.lowerBound
        while i < value.upperBound {
            var elementEnd = find(bytes, ASCII.comma, from: i, to: value.upperBound) ?? value.upperBound
            let next = elementEnd + 1
            while i < elementEnd, CharacterClass.isWhitespace(bytes[i]) { i += 1 }
            while elementEnd > i, CharacterClass.isWhitespace(bytes[elementEnd - 1]) { elementEnd -= 1 }
            if i < elementEnd { body(i..<elementEnd) }
            i = next
        }
    }
}

extension HTTPParser {
    /// Byte values the grammar refers to by name.
    enum ASCII {
        static let tab: UInt8 = 0x09
        static let lf: UInt8 = 0x0A
        static let cr: UInt8 = 0x0D
        static let space: UInt8 = 0x20
        static let quote: UInt8 = 0x22
        static let hash: UInt8 = 0x23
        static let percent: UInt8 = 0x25
        static let asterisk: UInt8 = 0x2A
        static let comma: UInt8 = 0x2C
        static let dot: UInt8 = 0x2E
        static let slash: UInt8 = 0x2F
        static let zero: UInt8 = 0x30
        static let colon: UInt8 = 0x3A
        static let semicolon: UInt8 = 0x3B
        static let equals: UInt8 = 0x3D
        static let question: UInt8 = 0x3F
        static let leftBracket: UInt8 = 0x5B
        static let backslash: UInt8 = 0x5C
        static let rightBracket: UInt8 = 0x5D
        static let delete: UInt8 = 0x7F
    }

    /// Character classes of RFC 9110 and RFC 3986. The sets of ASCII bytes are bitmaps (bit n
    /// of the low word is byte n, bit n of the high word is byte 64 + n), which keeps the
    /// per-byte test to a shift and a mask; the unit tests rebuild them from the grammar.
    enum CharacterClass {
        /// tchar: `!#$%&'*+-.^_`|~`, DIGIT, ALPHA.
        static let tcharLow: UInt64 = 0x03FF_6CFA_0000_0000
        static let tcharHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        /// reg-name without pct-encoded: unreserved and sub-delims.
        static let regNameLow: UInt64 = 0x2BFF_7FD2_0000_0000
        static let regNameHigh: UInt64 = 0x47FF_FFFE_87FF_FFFE

        @inline(__always)
        static func inSet(_ byte: UInt8, _ low: UInt64, _ high: UInt64) -> Bool {
            if byte < 64 { return low &>> UInt64(byte) & 1 != 0 }
            if byte < 128 { return high &>> UInt64(byte &- 64) & 1 != 0 }
            return false
        }

        @inline(__always)
        static func isTchar(_ byte: UInt8) -> Bool { inSet(byte, tcharLow, tcharHigh) }

        @inline(__always)
        static func isRegName(_ byte: UInt8) -> Bool { inSet(byte, regNameLow, regNameHigh) }

        @inline(__always)
        static func isWhitespace(_ byte: UInt8) -> Bool { byte == ASCII.space || byte == ASCII.tab }

        /// field-vchar, SP or HTAB; obs-text (0x80–0xFF) included.
        @inline(__always)
        static func isFieldContent(_ byte: UInt8) -> Bool {
            byte >= ASCII.space ? byte != ASCII.delete : byte == ASCII.tab
        }

        @inline(__always)
        static func isDigit(_ byte: UInt8) -> Bool { byte &- ASCII.zero < 10 }

        @inline(__always)
        static func isHexDigit(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

        @inline(__always)
        static func hexValue(_ byte: UInt8) -> Int? {
            if byte &- 0x30 < 10 { return Int(byte &- 0x30) }
            let lower = byte | 0x20
            if lower &- 0x61 < 6 { return Int(lower &- 0x61) + 10 }
            return nil
        }

        @inline(__always)
        static func lowercased(_ byte: UInt8) -> UInt8 {
            byte &- 0x41 < 26 ? byte | 0x20 : byte
        }

        /// Drops optional whitespace (SP, HTAB) from both ends.
        static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            var slice = bytes
            while let first = slice.first, isWhitespace(first) { slice.removeFirst() }
            while let last = slice.last, isWhitespace(last) { slice.removeLast() }
            return slice
        }
    }
}

extension HTTPParseError {
    fileprivate static let bareLF = HTTPParseError(.badRequest, "The request has a line that does not end in CRLF.")
    fileprivate static let bareCR = HTTPParseError(.badRequest, "The request contains a stray carriage return.")
    fileprivate static let truncatedHead = HTTPParseError(
        .badRequest, "The connection closed before the request was complete.")
    fileprivate static let truncatedBody = HTTPParseError(
        .badRequest, "The connection closed before the request body was complete.")
    fileprivate static let headTooLarge = HTTPParseError(.headerFieldsTooLarge, "The request's headers are too large.")
    fileprivate static let tooManyHeaders = HTTPParseError(.headerFieldsTooLarge, "The request has too many headers.")
    fileprivate static let targetTooLong = HTTPParseError(.uriTooLong, "The request's address is too long.")

    fileprivate static let invalidMethod = HTTPParseError(.badRequest, "The request method is not a valid token.")
    fileprivate static let malformedRequestLine = HTTPParseError(.badRequest, "The request line is malformed.")
    fileprivate static let missingVersion = HTTPParseError(.badRequest, "The request line has no HTTP version.")
    fileprivate static let malformedVersion = HTTPParseError(.badRequest, "The request's HTTP version is malformed.")
    fileprivate static let unsupportedVersion = HTTPParseError(
        .httpVersionNotSupported, "Only HTTP/1.0 and HTTP/1.1 are supported.")
    fileprivate static let invalidTargetCharacter = HTTPParseError(
        .badRequest, "The request's address contains an invalid character.")
    fileprivate static let invalidTarget = HTTPParseError(
        .badRequest, "The request's address is not in a form this server accepts.")
    fileprivate static let fragmentInTarget = HTTPParseError(
        .badRequest, "The request's address contains a fragment (#).")
    fileprivate static let asteriskWithoutOptions = HTTPParseError(
        .badRequest, "The address * is only valid with OPTIONS.")

    fileprivate static let obsFold = HTTPParseError(
        .badRequest, "The request has a header line that starts with whitespace.")
    fileprivate static let whitespaceBeforeColon = HTTPParseError(
        .badRequest, "The request has whitespace between a header name and its colon.")
    fileprivate static let invalidFieldName = HTTPParseError(
        .badRequest, "The request has a header with an invalid name.")
    fileprivate static let invalidFieldValue = HTTPParseError(
        .badRequest, "The request has a header value with a control character.")
    fileprivate static let missingHost = HTTPParseError(.badRequest, "An HTTP/1.1 request must have a Host header.")
    fileprivate static let duplicateHost = HTTPParseError(.badRequest, "The request has more than one Host header.")
    fileprivate static let invalidHost = HTTPParseError(.badRequest, "The request's Host header is not a valid host.")
    fileprivate static let invalidContentLength = HTTPParseError(
        .badRequest, "The request's Content-Length is not a number.")
    fileprivate static let contentLengthTooLarge = HTTPParseError(
        .badRequest, "The request's Content-Length is too large.")
    fileprivate static let duplicateContentLength = HTTPParseError(
        .badRequest, "The request has more than one Content-Length header.")
    fileprivate static let invalidTransferEncoding = HTTPParseError(
        .badRequest, "The request's Transfer-Encoding is malformed.")
    fileprivate static let transferEncodingInHTTP10 = HTTPParseError(
        .badRequest, "An HTTP/1.0 request cannot use Transfer-Encoding.")
    fileprivate static let lengthAndTransferEncoding = HTTPParseError(
        .badRequest, "The request has both Content-Length and Transfer-Encoding.")
    fileprivate static let chunkedNotFinal = HTTPParseError(
        .badRequest, "The request's Transfer-Encoding must end with chunked, once.")
    fileprivate static let unsupportedTransferCoding = HTTPParseError(
        .notImplemented, "The request uses a transfer coding other than chunked.")
    fileprivate static let unsupportedExpectation = HTTPParseError(
        .expectationFailed, "Only Expect: 100-continue is supported.")

    fileprivate static let invalidChunkSize = HTTPParseError(.badRequest, "The request has a malformed chunk size.")
    fileprivate static let chunkSizeTooLarge = HTTPParseError(
        .badRequest, "The request has a chunk size that is too large.")
    fileprivate static let invalidChunkExtension = HTTPParseError(
        .badRequest, "The request has a malformed chunk extension.")
    fileprivate static let chunkHeaderTooLong = HTTPParseError(
        .badRequest, "The request has a chunk header that is too long.")
    fileprivate static let chunkDataUnterminated = HTTPParseError(
        .badRequest, "The request has a chunk that does not end in CRLF.")
    fileprivate static let trailersTooLarge = HTTPParseError(
        .headerFieldsTooLarge, "The request's trailer fields are too large.")
}
