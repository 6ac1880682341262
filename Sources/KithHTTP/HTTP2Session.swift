import CNghttp2
import Glibc
import KithSync

/// One HTTP/2 connection's protocol state: an nghttp2 server session and the
/// streams it carries. Owned by the connection's event loop and touched only
/// on its thread; workers reach it through `mailbox`.
///
/// nghttp2 does the framing, HPACK and flow-control accounting and never
/// touches the socket: the loop hands it what it read (`receive`) and sends
/// what it serializes (`EventLoop.sendHTTP2`). The callbacks below only
/// record what arrived; routing, admission and responses happen in the loop
/// after `receive` returns (EventLoop+HTTP2.swift), so a stream opened and
/// reset in the same read never reaches a worker.
final class HTTP2Session {
    let connection: ConnectionID
    let mailbox: HTTP2Mailbox
    private(set) var session: OpaquePointer?
    var streams: [Int32: HTTP2Stream] = [:]
    /// Streams whose request head is complete, in arrival order.
    var headsReady: [Int32] = []
    /// Streams whose request body ended (END_STREAM).
    var bodiesEnded: [Int32] = []
    /// Streams whose body broke a limit while it was read.
    var bodiesRefused: [Int32] = []
    /// Answered before their request ended: reset with NO_ERROR once the answer is out.
    var resetAfterResponse: [Int32] = []
    /// Serialized frames not yet taken by the socket: `output[outputOffset...]`.
    var output: [UInt8] = []
    var outputOffset = 0
    /// GOAWAY has been queued; the connection ends when its last stream does.
    var goingAway = false
    let limits: HTTPParser.Limits
    /// What responses on this connection carry (`ServerCore.connectionFields`).
    let connectionFields: ConnectionFields
    /// Each kind's fields in one block, for the usual response that overrides none of them.
    let documentBlock: HTTP2HeaderBlock
    let subresourceBlock: HTTP2HeaderBlock
    let maxUnsentBytes: Int
    /// What the deadline was last set for, so that only progress or a change of kind moves it.
    var deadlineKind = DeadlineKind.none
    /// Request bytes (header fields, DATA) arrived for a stream since the
    /// last turn. Only these, and response bytes taken by the socket, move
    /// the deadline: PING, SETTINGS and WINDOW_UPDATE cost a client nothing,
    /// and would otherwise keep a stalled request open for ever.
    var requestProgress = false
    /// `output` holds a response's HEADERS or DATA, not only control frames
    /// (a PING's acknowledgement), so the socket taking it is progress.
    var outputCarriesResponse = false
    private var dateSecond = -1
    private var dateValue = ""

    /// How much serialized output one turn gathers before it goes to the
    /// socket (one TLS write); a DATA frame may run past it by one frame.
    static let sendBatch = 64 * 1024

    /// The Date field's value, formatted once a second rather than per response.
    var date: String {
        let second = HTTPDate.now()
        if second != dateSecond {
            dateSecond = second
            dateValue = HTTPDate.format(second)
        }
        return dateValue
    }

    enum DeadlineKind { case none, idle, waitingOnClient, serving }

    /// Stream window once a body is admitted, and the connection's window.
    static let bodyWindow: Int32 = 1 << 20

    init?(loop: EventLoop, connection: ConnectionID, configuration: ServerConfiguration, connectionFields: ConnectionFields) {
        self.connection = connection
        self.connectionFields = connectionFields
        func block(_ fields: [ConnectionField]) -> HTTP2HeaderBlock {
            var block = HTTP2HeaderBlock()
            for field in fields { block.add(field.block) }
            return block
        }
        documentBlock = block(connectionFields.document)
        subresourceBlock = block(connectionFields.subresource)
        mailbox = HTTP2Mailbox(loop: loop, connection: connection)
        limits = configuration.parserLimits
        maxUnsentBytes = configuration.maxStreamUnsentBytes

        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSent)
        nghttp2_session_callbacks_set_send_data_callback(callbacks, http2SendData)

        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { return nil }
        defer { nghttp2_option_del(option) }
        // Windows are opened by hand: a stream may send body bytes only
        // after the application has admitted its head, as over HTTP/1.1.
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_option_set_stream_reset_rate_limit(
            option, UInt64(configuration.http2ResetBurst), UInt64(configuration.http2ResetsPerSecond))

        var created: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_server_new2(&created, callbacks, user, option) == 0, let created else { return nil }
        session = created

        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: UInt32(configuration.http2MaxConcurrentStreams)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(configuration.parserLimits.maxHeadBytes)),
        ]
        guard nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else {
            return nil
        }
        // Uploads of different streams share this; each stream's own window
        // (0 until admitted) is what holds an unadmitted body back.
        _ = nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.bodyWindow)
    }

    /// Feeds bytes read from the socket. Returns false when the connection
    /// is beyond repair (a protocol error, a flood): whatever GOAWAY nghttp2
    /// queued should be sent, then the connection closed.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let session, bytes.count > 0 else { return true }
        let n = nghttp2_session_mem_recv(session, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count)
        return n >= 0
    }

    var wantsIO: Bool {
        guard let session else { return false }
        return nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
            || outputOffset < output.count
    }

    /// The connection is gone: nothing more is sent, every stream ends.
    func close(_ reason: ResponseStream.CloseReason) {
        for (_, message) in mailbox.close() {
            if case .response(let response) = message { EventLoop.abandon(response) }
        }
        let open = streams.values
        streams = [:]
        for stream in open { stream.end(reason) }
        if let session { nghttp2_session_del(session) }
        session = nil
    }

    fileprivate static func from(_ user: UnsafeMutableRawPointer?) -> HTTP2Session {
        Unmanaged<HTTP2Session>.fromOpaque(user!).takeUnretainedValue()
    }
}

/// One request and its response on an HTTP/2 connection.
final class HTTP2Stream {
    enum State {
        /// Its header block is arriving.
        case headers
        /// Waiting for the application to admit its body; nothing of it is stored.
        case admitting
        case readingBody
        case awaitingHandler
        /// Answered; the response is being sent.
        case responding
        /// A long-lived response (Server-Sent Events).
        case streaming
    }

    let id: Int32
    var state = State.headers
    var fields: [(name: String, value: String)] = []
    /// The pseudo-header fields Kith reads; nghttp2 has already checked
    /// the set is well formed (RFC 9113 §8.3.1), so the others are dropped.
    var method: String?
    var target: String?
    var authority: String?
    var headerBytes = 0
    /// Why the head is answered without routing it (too large, malformed).
    var headRefusal: HTTPError?
    var exchange: Exchange?
    /// The client sent END_STREAM: its request is whole.
    var requestEnded = false
    /// Body bytes that came before admission (only possible before the
    /// client has seen our zero initial window): kept in memory, at most
    /// one default window, and dropped unread if the stream is refused.
    var early: [UInt8] = []
    var bodyBytes = 0
    var bodyRefusal: HTTPError?

    /// The response body, in order; `.region` descriptors are owned here.
    var pieces: [Piece] = []
    var nextPiece = 0
    var pieceOffset: Int64 = 0
    /// Body bytes not yet promised to nghttp2 (see `http2ReadBody`).
    var bodyLeft: Int64 = 0
    var events: ResponseStream?
    var eventBuffer: [UInt8] = []
    var eventOffset = 0
    var eventsEnded = false
    /// Why its event stream ended, when the server decided.
    var endReason: ResponseStream.CloseReason?

    enum Piece {
        case bytes([UInt8])
        case region(FileRegion)
        /// A whole file opened when its turn comes; it must still be `length` bytes.
        case path(String, length: Int64)
    }

    init(id: Int32) { self.id = id }

    var waitsOnClient: Bool { state == .headers || state == .admitting || state == .readingBody }

    /// Closes what it holds; tells its event stream's owner why it ended.
    func end(_ reason: ResponseStream.CloseReason) {
        if let exchange {
            exchange.abandoned.set()
            exchange.abandonBody()
        }
        for piece in pieces[nextPiece...] {
            if case .region(let region) = piece { Glibc.close(region.descriptor) }
        }
        pieces = []
        nextPiece = 0
        if let events {
            self.events = nil
            events.ended(endReason ?? reason)
        }
    }

    /// Copies up to `length` body bytes into `buffer`. Returns the count, 0
    /// with `done` at the end, or nil when a file no longer holds what was
    /// promised (the stream is then reset: its length cannot be kept).
    func readBody(into buffer: UnsafeMutablePointer<UInt8>, length: Int, done: inout Bool) -> Int? {
        var filled = 0
        while filled < length && nextPiece < pieces.count {
            let room = length - filled
            switch pieces[nextPiece] {
            case .bytes(let bytes):
                let count = min(room, bytes.count - Int(pieceOffset))
                bytes.withUnsafeBytes { raw in
                    (buffer + filled).update(
                        from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + Int(pieceOffset), count: count)
                }
                filled += count
                pieceOffset += Int64(count)
                if pieceOffset == Int64(bytes.count) { advance() }
            case .region(let region):
                let count = Int(min(Int64(room), region.length - pieceOffset))
                let n = count == 0 ? 0 : pread(region.descriptor, buffer + filled, count, off_t(region.offset + pieceOffset))
                guard n > 0 || count == 0 else { return nil }
                filled += n
                pieceOffset += Int64(n)
                if pieceOffset == region.length {
                    Glibc.close(region.descriptor)
                    advance()
                }
            case .path(let path, let length):
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return nil }
                var info = stat()
                guard fstat(fd, &info) == 0, Int64(info.st_size) == length else {
                    Glibc.close(fd)
                    return nil
                }
                pieces[nextPiece] = .region(FileRegion(descriptor: fd, offset: 0, length: length))
            }
        }
        done = nextPiece == pieces.count
        return filled
    }

    /// Appends the next `length` body bytes to `output`: bytes held in
    /// memory (static assets) are copied once, straight from the asset;
    /// files are read in place. False when a file no longer holds them.
    func appendBody(_ length: Int, to output: inout [UInt8]) -> Bool {
        var left = length
        while left > 0, nextPiece < pieces.count, case .bytes(let bytes) = pieces[nextPiece] {
            let start = Int(pieceOffset)
            let count = min(left, bytes.count - start)
            output.append(contentsOf: bytes[start..<(start + count)])
            left -= count
            pieceOffset += Int64(count)
            if pieceOffset == Int64(bytes.count) { advance() }
        }
        guard left > 0 else { return true }
        let mark = output.count
        output.append(contentsOf: repeatElement(0, count: left))
        var done = false
        let filled = output.withUnsafeMutableBufferPointer { readBody(into: $0.baseAddress! + mark, length: left, done: &done) }
        return filled == left
    }

    private func advance() {
        pieces[nextPiece] = .bytes([])
        nextPiece += 1
        pieceOffset = 0
    }

    /// Copies queued event bytes. nil: nothing now, come back when woken.
    func readEvents(into buffer: UnsafeMutablePointer<UInt8>, length: Int, done: inout Bool) -> Int? {
        let available = eventBuffer.count - eventOffset
        if available == 0 {
            if eventsEnded {
                done = true
                return 0
            }
            return nil
        }
        let count = min(length, available)
        eventBuffer.withUnsafeBytes { raw in
            buffer.update(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + eventOffset, count: count)
        }
        eventOffset += count
        if eventOffset == eventBuffer.count {
            eventBuffer = []
            eventOffset = 0
        }
        done = eventsEnded && eventBuffer.isEmpty
        return count
    }

    var unsentEventBytes: Int { eventBuffer.count - eventOffset }
}

/// How workers (and event streams' writers) reach an HTTP/2 connection:
/// messages keyed by stream, then the usual wake-up of the connection.
final class HTTP2Mailbox: Sendable {
    enum Message: Sendable {
        case response(Response)
        case admission(Admission)
    }

    private struct State {
        var messages: [(Int32, Message)] = []
        var closed = false
    }

    private let state = Lock(State())
    let loop: EventLoop
    let connection: ConnectionID

    init(loop: EventLoop, connection: ConnectionID) {
        self.loop = loop
        self.connection = connection
    }

    func post(_ stream: Int32, _ message: Message) {
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.messages.append((stream, message))
            return true
        }
        if accepted {
            loop.streamNeedsAttention(connection)
        } else if case .response(let response) = message {
            EventLoop.abandon(response)
        }
    }

    func take() -> [(Int32, Message)] {
        state.withLock { state in
            var taken: [(Int32, Message)] = []
            swap(&taken, &state.messages)
            return taken
        }
    }

    /// No more messages are taken; returns those left behind.
    func close() -> [(Int32, Message)] {
        state.withLock { state in
            state.closed = true
            var taken: [(Int32, Message)] = []
            swap(&taken, &state.messages)
            return taken
        }
    }
}

// MARK: - nghttp2 callbacks (recording only; see HTTP2Session)

private func isRequestHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Bool {
    frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) && frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
}

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, user in
    guard let frame, isRequestHeaders(frame) else { return 0 }
    let session = HTTP2Session.from(user)
    let id = frame.pointee.hd.stream_id
    session.streams[id] = HTTP2Stream(id: id)
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, user in
    guard let frame, let name, let value else { return 0 }
    let session = HTTP2Session.from(user)
    guard let stream = session.streams[frame.pointee.hd.stream_id] else { return 0 }
    session.requestProgress = true
    // Counted as SETTINGS_MAX_HEADER_LIST_SIZE counts (RFC 9113 §6.5.2),
    // trailers included; past the parser's limits nothing more is kept and
    // the request is answered 431, as over HTTP/1.1.
    stream.headerBytes += nameLength + valueLength + 32
    if stream.headerBytes > session.limits.maxHeadBytes || stream.fields.count >= session.limits.maxHeaderCount {
        if stream.headRefusal == nil {
            stream.headRefusal = HTTPError(.headerFieldsTooLarge, "The request's headers are too large.")
        }
        stream.fields = []
        return 0
    }
    guard stream.state == .headers, stream.headRefusal == nil else { return 0 }
    let nameBytes = UnsafeBufferPointer(start: name, count: nameLength)
    let valueText = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    if nameBytes.first == UInt8(ascii: ":") {
        if isName(nameBytes, ":path") {
            stream.target = valueText
        } else if isName(nameBytes, ":method") {
            stream.method = valueText
        } else if isName(nameBytes, ":authority") {
            stream.authority = valueText
        }
    } else {
        stream.fields.append((String(decoding: nameBytes, as: UTF8.self), valueText))
    }
    return 0
}

/// A header name against a literal, by length and then bytes.
private func isName(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    bytes.count == literal.utf8CodeUnitCount && memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
}

private let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, user in
    guard let frame else { return 0 }
    let session = HTTP2Session.from(user)
    let id = frame.pointee.hd.stream_id
    guard let stream = session.streams[id] else { return 0 }
    let type = frame.pointee.hd.type
    let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    if type == UInt8(NGHTTP2_HEADERS.rawValue) && stream.state == .headers && isRequestHeaders(frame) {
        stream.requestEnded = endStream
        session.headsReady.append(id)
        return 0
    }
    if (type == UInt8(NGHTTP2_DATA.rawValue) || type == UInt8(NGHTTP2_HEADERS.rawValue)) && endStream {
        stream.requestEnded = true
        if stream.state == .readingBody { session.bodiesEnded.append(id) }
    }
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { raw, _, id, data, length, user in
    guard let raw, let data else { return 0 }
    let session = HTTP2Session.from(user)
    if length > 0 { session.requestProgress = true }
    let bytes = UnsafeRawBufferPointer(start: data, count: length)
    guard let stream = session.streams[id] else {
        _ = nghttp2_session_consume_connection(raw, length)
        return 0
    }
    switch stream.state {
    case .headers, .admitting:
        // The window is not given back: the bytes still count against the
        // connection until the stream is admitted (and consumed) or refused.
        stream.early.append(contentsOf: bytes)
    case .readingBody where stream.bodyRefusal == nil:
        _ = nghttp2_session_consume(raw, id, length)
        if let refusal = HTTP2Session.take(bytes, into: stream) {
            stream.bodyRefusal = refusal
            session.bodiesRefused.append(id)
        }
    default:
        // Refused or answered already: discarded unread.
        _ = nghttp2_session_consume_connection(raw, length)
    }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, id, _, user in
    let session = HTTP2Session.from(user)
    guard let stream = session.streams.removeValue(forKey: id) else { return 0 }
    if let exchange = stream.exchange, stream.state == .responding || stream.state == .streaming {
        session.mailbox.loop.log(exchange, protocol: "h2")
        stream.exchange = nil
    }
    stream.end(.disconnected)
    return 0
}

private let onFrameSent: nghttp2_on_frame_send_callback = { _, frame, user in
    guard let frame else { return 0 }
    let session = HTTP2Session.from(user)
    let id = frame.pointee.hd.stream_id
    let type = frame.pointee.hd.type
    if type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue) { session.outputCarriesResponse = true }
    let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    if endStream, let stream = session.streams[id], !stream.requestEnded {
        session.resetAfterResponse.append(id)
    }
    return 0
}

/// nghttp2 asks for the next piece of a response body. A fixed-length body
/// is only measured here (NO_COPY): its bytes go out in `http2SendData`, so
/// they are copied once, into the send buffer, rather than first into
/// nghttp2's frame buffer. Event streams' bytes are few and copied as before.
let http2ReadBody: nghttp2_data_source_read_callback = { _, id, buffer, length, flags, _, user in
    guard let buffer, let flags else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
    let session = HTTP2Session.from(user)
    guard let stream = session.streams[id] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
    var done = false
    let count: Int
    if stream.state == .streaming {
        guard let read = stream.readEvents(into: buffer, length: length, done: &done) else {
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        count = read
    } else {
        count = Int(min(Int64(length), stream.bodyLeft))
        stream.bodyLeft -= Int64(count)
        done = stream.bodyLeft == 0
        if count > 0 { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_NO_COPY.rawValue) }
    }
    if done { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
    if let exchange = stream.exchange { exchange.bytesSent += Int64(count) }
    return count
}

/// One DATA frame measured by `http2ReadBody`: its 9-byte header and its
/// body bytes, appended together to the send buffer. Once the buffer holds a
/// batch, nghttp2 is paused so that the batch goes to the socket before more
/// is gathered (flow-control windows may be far larger than we want to hold).
private let http2SendData: nghttp2_send_data_callback = { _, frame, header, length, _, user in
    guard let frame, let header else { return Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let session = HTTP2Session.from(user)
    guard let stream = session.streams[frame.pointee.hd.stream_id] else {
        return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    let mark = session.output.count
    session.output.append(contentsOf: UnsafeBufferPointer(start: header, count: 9))
    guard stream.appendBody(length, to: &session.output) else {
        // The file changed under us: this frame never happened, and the
        // stream is reset, since its promised length cannot be kept.
        session.output.removeSubrange(mark...)
        return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    return session.output.count >= HTTP2Session.sendBatch ? Int32(NGHTTP2_ERR_PAUSE.rawValue) : 0
}

extension HTTP2Session {
    /// Adds body bytes to the stream's sink under the route's limits, as
    /// HTTP/1.1 measures a chunked body. Returns the refusal when one breaks.
    static func take(_ bytes: UnsafeRawBufferPointer, into stream: HTTP2Stream) -> HTTPError? {
        guard let exchange = stream.exchange, let route = exchange.route else { return nil }
        stream.bodyBytes += bytes.count
        var limit = route.body.maxBytes
        if case .buffer = exchange.body { limit = min(limit, route.body.maxBufferedBytes) }
        if case .length(let declared) = exchange.head?.framing, stream.bodyBytes > declared {
            return HTTPError(.badRequest, "The request sent more than it said it would.")
        }
        if stream.bodyBytes > limit { return EventLoop.tooLarge(limit) }
        do {
            try EventLoop.feed(&exchange.body, bytes)
        } catch {
            return HTTPError(error.status, error.message)
        }
        return nil
    }
}
