import CKithShim
import CNghttp2
import Glibc

/// HTTP/2 on the same loop: a connection switches here when it opens with
/// the HTTP/2 preface (cleartext, prior knowledge) or, under TLS, when ALPN
/// chose "h2" (call `startHTTP2`). Each stream goes through what an
/// HTTP/1.1 exchange does — `routing`, `refusal`, admission on a worker
/// before any body byte is kept, `makeSink` (uploads to disk), the handler
/// on a worker — and its response is fed to nghttp2 as the peer's flow
/// control allows. An event stream's queued bytes count against the same
/// `maxStreamUnsentBytes` as over HTTP/1.1.
extension EventLoop {
    enum PrefaceCheck { case complete, partial, absent }

    static let http2Preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Whether the buffered input opens with the HTTP/2 preface; `partial`
    /// while what came so far is a beginning of it.
    func http2Preface(_ conn: Connection) -> PrefaceCheck {
        let count = min(conn.input.count - conn.inputStart, Self.http2Preface.count)
        for i in 0..<count where conn.input[conn.inputStart + i] != Self.http2Preface[i] {
            conn.mayStartHTTP2 = false
            return .absent
        }
        return count == Self.http2Preface.count ? .complete : .partial
    }

    /// Hands the connection to HTTP/2; what was read already (the preface,
    /// perhaps more) goes to nghttp2 first.
    func startHTTP2(_ conn: Connection) {
        conn.mayStartHTTP2 = false
        guard
            let session = HTTP2Session(
                loop: self, connection: conn.id, configuration: core.configuration,
                connectionFields: core.connectionFields(secure: conn.tls != nil))
        else {
            core.logger.log(["level": "error", "msg": "could not start an HTTP/2 session"])
            closeConnection(conn)
            return
        }
        conn.http2 = session
        conn.phase = .http2
        conn.keepAlive = false
        conn.deadline = now + core.keepAliveTimeout
    }

    // MARK: - Socket I/O
    //
    // Every byte of an HTTP/2 connection is read by `http2Receive` and sent
    // by `http2Send`, and by nothing else: under TLS these two are the
    // pair pointed at the TLS transport.

    /// Reads once into `scratch`: the count, 0 at end of stream, -1 with errno.
    func http2Receive(_ conn: Connection) -> Int {
        if let tls = conn.tls { return scratch.withUnsafeMutableBytes { tls.read(into: $0, conn) } }
        return scratch.withUnsafeMutableBytes { read(conn.id.fd, $0.baseAddress!, $0.count) }
    }

    /// Sends once: the count taken, or -1 with errno.
    func http2Send(_ conn: Connection, _ bytes: UnsafeRawBufferPointer) -> Int {
        if let tls = conn.tls { return tls.write(bytes.baseAddress!, bytes.count, conn) }
        return kith_send(conn.id.fd, UnsafeMutableRawPointer(mutating: bytes.baseAddress!), bytes.count)
    }

    // MARK: - Driving

    /// Reads what there is, acts on it, answers what is ready and sends as
    /// much as the socket takes.
    func processHTTP2(_ conn: Connection) {
        guard let h2 = conn.http2 else { return }
        var progressed = false
        var healthy = true
        if conn.hasBufferedInput {
            healthy = conn.input.withUnsafeBytes { h2.receive(UnsafeRawBufferPointer(rebasing: $0[conn.inputStart...])) }
            conn.input = []
            conn.inputStart = 0
        }
        while healthy && conn.readable {
            let n = http2Receive(conn)
            if n > 0 {
                // (TLS clears the flag itself: a short record says nothing of the socket.)
                if n < scratch.count && conn.tls == nil { conn.readable = false }
                healthy = scratch.withUnsafeBytes { h2.receive(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                conn.readable = false
            } else if n == TLSSession.blockedOtherWay {
                break
            } else {
                closeConnection(conn)
                return
            }
        }
        if h2.requestProgress {
            progressed = true
            h2.requestProgress = false
        }
        if healthy {
            actOnReceived(conn, h2)
            for (id, message) in h2.mailbox.take() { deliver(message, to: id, conn, h2) }
            pumpEventStreams(h2)
        }
        guard sendHTTP2(conn, h2, progressed: &progressed), conn.http2 != nil else { return }
        if !healthy || !h2.wantsIO {
            // A protocol error or a flood (nghttp2 has queued its GOAWAY and
            // it went out above as far as the socket took it), or every
            // stream is done after GOAWAY.
            closeConnection(conn, streamReason: h2.goingAway ? .serverShutdown : .disconnected)
            return
        }
        updateDeadline(conn, h2, progressed: progressed)
    }

    /// Heads that completed, bodies that ended or broke a limit, in the last read.
    private func actOnReceived(_ conn: Connection, _ h2: HTTP2Session) {
        while !h2.headsReady.isEmpty || !h2.bodiesRefused.isEmpty || !h2.bodiesEnded.isEmpty {
            let heads = h2.headsReady
            let refused = h2.bodiesRefused
            let ended = h2.bodiesEnded
            h2.headsReady = []
            h2.bodiesRefused = []
            h2.bodiesEnded = []
            for id in heads {
                // Reset already (a rapid reset), or refused by nghttp2: costs nothing more.
                guard let stream = h2.streams[id], stream.state == .headers else { continue }
                beginStream(conn, h2, stream)
            }
            for id in refused {
                guard let stream = h2.streams[id], let refusal = stream.bodyRefusal, stream.state == .readingBody else { continue }
                stream.exchange?.abandonBody()
                respondHTTP2(h2, stream, core.responder.errorResponse(refusal, head: stream.exchange?.head))
            }
            for id in ended {
                guard let stream = h2.streams[id], stream.state == .readingBody, stream.bodyRefusal == nil else { continue }
                endOfStreamRequest(h2, stream)
            }
        }
    }

    private func beginStream(_ conn: Connection, _ h2: HTTP2Session, _ stream: HTTP2Stream) {
        let head: RequestHead
        switch Self.requestHead(stream, limits: h2.limits) {
        case .failure(let error):
            answerEarly(h2, stream, error, head: nil)
            return
        case .success(let parsed):
            head = parsed
        }
        if let location = httpsLocation(conn, head) {
            answerEarly(h2, stream, .redirect(to: location, status: .permanentRedirect), head: head)
            return
        }
        let hasBody = Self.announcesBody(head)
        switch routing(head) {
        case .refused(let error):
            answerEarly(h2, stream, error, head: head)
        case .matched(let route, let parameters, let index):
            let exchange = makeExchange(conn, head, route, parameters, index)
            stream.exchange = exchange
            if hasBody, let refusal = Self.refusal(of: head, by: route.body) {
                answerEarly(h2, stream, refusal, head: head)
                return
            }
            if hasBody {
                stream.state = .admitting
                let request = Request(head: head, route: route, parameters: parameters, remoteAddress: exchange.clientAddress)
                if !submitAdmission(request, abandoned: exchange.abandoned, reply: .http2(h2.mailbox, stream.id)) {
                    answerEarly(h2, stream, Self.busy, head: head)
                }
                return
            }
            // No body announced: any DATA that still comes is measured
            // against the route's limit (none, for most) as it arrives.
            stream.state = .readingBody
            if stream.requestEnded { endOfStreamRequest(h2, stream) }
        }
    }

    /// A stream's head as HTTP/1.1's parser would have made it. `:authority`
    /// stands for Host; the version is 1.1 as far as handlers can tell.
    static func requestHead(_ stream: HTTP2Stream, limits: HTTPParser.Limits) -> Result<RequestHead, HTTPError> {
        if let refusal = stream.headRefusal { return .failure(refusal) }
        guard let method = stream.method, let target = stream.target else {
            return .failure(.badRequest("The request could not be read."))
        }
        guard target.utf8.count <= limits.maxTargetBytes else {
            return .failure(HTTPError(.uriTooLong, "That address is too long."))
        }
        guard target.hasPrefix("/") || (target == "*" && method == "OPTIONS") else {
            return .failure(.badRequest("That address isn't one we understand."))
        }
        var headers = HTTPHeaders()
        if let authority = stream.authority, !stream.fields.contains(where: { HTTPHeaders.equal($0.name, "Host") }) {
            headers.add("host", authority)
        }
        var length: Int?
        for field in stream.fields {
            headers.add(field.name, field.value)
            if HTTPHeaders.equal(field.name, "Content-Length") {
                guard let value = Int(field.value), value >= 0, length == nil || length == value else {
                    return .failure(.badRequest("The request's length could not be read."))
                }
                length = value
            }
        }
        let framing: BodyFraming
        if let length {
            framing = .length(length)
        } else if stream.requestEnded || method == "GET" || method == "HEAD" {
            framing = .none
        } else {
            // Unannounced: measured as it comes, like a chunked body.
            framing = .chunked
        }
        // By code unit: a Character search would run grapheme breaking over the whole address.
        let question = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = question.map { String(target[..<$0]) } ?? target
        let query = question.map { String(target[target.utf8.index(after: $0)...]) }
        stream.fields = []
        (stream.method, stream.target, stream.authority) = (nil, nil, nil)
        return .success(
            RequestHead(
                method: HTTPMethod(rawValue: method), target: target, path: path, query: query, minorVersion: 1,
                headers: headers, framing: framing, keepAlive: true, expectsContinue: false))
    }

    /// Answers without a handler. Whatever body was on its way stays unread:
    /// its window was never opened, and the stream is reset (NO_ERROR) once
    /// the answer is out.
    private func answerEarly(_ h2: HTTP2Session, _ stream: HTTP2Stream, _ error: HTTPError, head: RequestHead?) {
        answerEarly(h2, stream, core.responder.errorResponse(error, head: head), head: head)
    }

    /// Answers without reading the body (any that comes is dropped).
    private func answerEarly(_ h2: HTTP2Session, _ stream: HTTP2Stream, _ response: Response, head: RequestHead?) {
        if stream.exchange == nil {
            stream.exchange = Exchange(head: head, route: nil, parameters: PathParameters(), started: now)
        }
        stream.exchange?.abandonBody()
        dropEarly(h2, stream)
        respondHTTP2(h2, stream, response)
    }

    /// Gives back the connection window that unadmitted bytes held.
    private func dropEarly(_ h2: HTTP2Session, _ stream: HTTP2Stream) {
        guard !stream.early.isEmpty, let session = h2.session else { return }
        _ = nghttp2_session_consume_connection(session, stream.early.count)
        stream.early = []
    }

    private func deliver(_ message: HTTP2Mailbox.Message, to id: Int32, _ conn: Connection, _ h2: HTTP2Session) {
        guard let stream = h2.streams[id] else {
            if case .response(let response) = message { Self.abandon(response) }
            return
        }
        switch message {
        case .response(let response):
            guard stream.state == .awaitingHandler else {
                Self.abandon(response)
                return
            }
            respondHTTP2(h2, stream, response)
        case .admission(let admission):
            guard stream.state == .admitting, let exchange = stream.exchange, let head = exchange.head,
                let route = exchange.route, let session = h2.session
            else { return }
            switch admission {
            case .refuse(let error):
                answerEarly(h2, stream, error, head: head)
            case .proceed(let firstField):
                exchange.body = makeSink(head, route.body, exchange: exchange, firstField: firstField)
                stream.state = .readingBody
                let early = stream.early
                stream.early = []
                if !early.isEmpty {
                    _ = nghttp2_session_consume(session, id, early.count)
                    if let refusal = early.withUnsafeBytes({ HTTP2Session.take($0, into: stream) }) {
                        stream.bodyRefusal = refusal
                        exchange.abandonBody()
                        respondHTTP2(h2, stream, core.responder.errorResponse(refusal, head: head))
                        return
                    }
                }
                if stream.requestEnded {
                    endOfStreamRequest(h2, stream)
                } else {
                    // Now, and only now, the client may send its body.
                    _ = nghttp2_session_set_local_window_size(
                        session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, HTTP2Session.bodyWindow)
                }
            }
        }
    }

    /// The whole request is in: to a handler, as over HTTP/1.1.
    private func endOfStreamRequest(_ h2: HTTP2Session, _ stream: HTTP2Stream) {
        guard let exchange = stream.exchange, let route = exchange.route, let head = exchange.head else { return }
        let request: Request
        do {
            request = try Self.assembleRequest(exchange, head: head, route: route)
        } catch {
            exchange.abandonBody()
            respondHTTP2(h2, stream, core.responder.errorResponse(HTTPError(error.status, error.message), head: head))
            return
        }
        stream.state = .awaitingHandler
        let reservation = exchange.reservation
        exchange.reservation = nil
        if route.runsInline {
            let response = core.responder.respond(to: request)
            Self.cleanUp(request, reservation)
            respondHTTP2(h2, stream, response)
            return
        }
        if !submitHandler(request, reservation: reservation, abandoned: exchange.abandoned, reply: .http2(h2.mailbox, stream.id)) {
            respondHTTP2(h2, stream, core.responder.errorResponse(Self.busy, head: head))
        }
    }

    // MARK: - Responses

    /// Headers that belong to one HTTP/1.1 connection, never to an HTTP/2 stream (RFC 9113 §8.2.2).
    private static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "content-length",
    ]

    private func respondHTTP2(_ h2: HTTP2Session, _ stream: HTTP2Stream, _ response: Response) {
        guard let session = h2.session, let exchange = stream.exchange else {
            Self.abandon(response)
            return
        }
        exchange.status = response.status.code
        let status = response.status.code
        let bodyAllowed = !(100..<200).contains(status) && status != 204 && status != 304
        let sendBody = bodyAllowed && !exchange.headOnly
        var length: Int64?
        var pieces: [HTTP2Stream.Piece] = []
        var streamStart: (@Sendable (ResponseStream) -> Void)?
        switch response.body {
        case .bytes(let bytes):
            length = Int64(bytes.count)
            if sendBody && !bytes.isEmpty { pieces = [.bytes(bytes)] }
        case .file(let region):
            length = region.length
            if sendBody && region.length > 0 { pieces = [.region(region)] } else { close(region.descriptor) }
        case .segments(let parts):
            length = parts.reduce(0) { $0 + $1.length }
            if sendBody {
                pieces = parts.map {
                    switch $0 {
                    case .bytes(let bytes): .bytes(bytes)
                    case .file(let path, let length): .path(path, length: length)
                    }
                }
            }
        case .stream(let start):
            if sendBody { streamStart = start }
        }
        exchange.bodyLength = sendBody ? length ?? 0 : 0

        var fields = HTTP2HeaderBlock()
        fields.reserve(bytes: 512, fields: 16)
        fields.add(":status", Self.statusText(status))
        for (name, value) in response.headers {
            let lower = name.lowercased()
            guard Self.isSafeHeader(name, value), !Self.connectionSpecific.contains(lower) else { continue }
            fields.add(lower, value)
        }
        fields.add(response.prepared.block)
        if response.headers.count == 0 {
            fields.add(response.kind == .document ? h2.documentBlock : h2.subresourceBlock)
        } else {
            for field in h2.connectionFields[response.kind] where !response.headers.contains(field.name) {
                fields.add(field.block)
            }
        }
        if bodyAllowed, let length, streamStart == nil { fields.add("content-length", String(length)) }
        fields.add("date", h2.date)

        stream.pieces = pieces
        stream.nextPiece = 0
        stream.pieceOffset = 0
        stream.bodyLeft = pieces.isEmpty ? 0 : length ?? 0
        stream.state = streamStart == nil ? .responding : .streaming
        let hasData = !pieces.isEmpty || streamStart != nil
        let result = fields.withNameValues { nva, count in
            if hasData {
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: http2ReadBody)
                return nghttp2_submit_response(session, stream.id, nva, count, &provider)
            }
            return nghttp2_submit_response(session, stream.id, nva, count, nil)
        }
        guard result == 0 else {
            stream.end(.disconnected)
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_INTERNAL_ERROR.rawValue)
            return
        }
        if let streamStart {
            let events = ResponseStream(loop: self, connection: h2.connection, maxUnsentBytes: h2.maxUnsentBytes)
            stream.events = events
            log(exchange, protocol: "h2")
            // Logged, and nothing more is read: the head need not stay for the stream's hours.
            stream.exchange = nil
            streamStart(events)
        }
    }

    /// The fields as nghttp2 name/value pairs, valid for the call (nghttp2 copies them).
    private static func statusText(_ status: Int) -> String {
        status == 200 ? "200" : String(status)
    }

    /// Takes what each event stream has queued into its own buffer (so its
    /// writers keep waking the loop), resumes the ones with something to
    /// send, and resets any whose client has fallen more than
    /// `maxStreamUnsentBytes` behind — flow control holding bytes back
    /// counts the same as a full socket over HTTP/1.1.
    private func pumpEventStreams(_ h2: HTTP2Session) {
        guard let session = h2.session else { return }
        for stream in h2.streams.values where stream.state == .streaming {
            guard let events = stream.events else { continue }
            let (bytes, closed) = events.drain()
            if !bytes.isEmpty {
                if stream.eventOffset > 0 {
                    stream.eventBuffer.removeFirst(stream.eventOffset)
                    stream.eventOffset = 0
                }
                if stream.eventBuffer.isEmpty { stream.eventBuffer = bytes } else { stream.eventBuffer.append(contentsOf: bytes) }
            }
            let reason = closed ? events.closeReason : nil
            if reason == .slowConsumer || stream.unsentEventBytes > h2.maxUnsentBytes {
                stream.endReason = .slowConsumer
                stream.eventBuffer = []
                stream.eventOffset = 0
                _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_CANCEL.rawValue)
                continue
            }
            if closed {
                stream.eventsEnded = true
                stream.endReason = reason
            }
            if !bytes.isEmpty || closed { _ = nghttp2_session_resume_data(session, stream.id) }
        }
    }

    // MARK: - Sending

    /// Sends what is pending, then what nghttp2 has to say, in buffers of up
    /// to 64 KiB, until the socket is full or nothing is left. Returns false
    /// when the connection was closed.
    private func sendHTTP2(_ conn: Connection, _ h2: HTTP2Session, progressed: inout Bool) -> Bool {
        while true {
            while h2.outputOffset < h2.output.count {
                guard conn.writable else { return true }
                let n = h2.output.withUnsafeBytes { http2Send(conn, UnsafeRawBufferPointer(rebasing: $0[h2.outputOffset...])) }
                if n > 0 {
                    h2.outputOffset += n
                    if h2.outputCarriesResponse { progressed = true }
                } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    conn.writable = false
                    return true
                } else if n == TLSSession.blockedOtherWay {
                    return true
                } else {
                    closeConnection(conn)
                    return false
                }
            }
            h2.output.removeAll(keepingCapacity: h2.output.capacity <= 80 * 1024)
            h2.outputOffset = 0
            h2.outputCarriesResponse = false
            guard let session = h2.session else { return true }
            while h2.output.count < HTTP2Session.sendBatch {
                var data: UnsafePointer<UInt8>?
                let n = nghttp2_session_mem_send(session, &data)
                if n < 0 {
                    closeConnection(conn)
                    return false
                }
                guard n > 0, let data else { break }
                h2.output.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
            }
            if !h2.resetAfterResponse.isEmpty {
                for id in h2.resetAfterResponse where h2.streams[id] != nil {
                    _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_NO_ERROR.rawValue)
                }
                h2.resetAfterResponse = []
                continue
            }
            if h2.output.isEmpty { return true }
        }
    }

    /// Idle: the keep-alive timeout. A client owing us a head or a body, or
    /// not taking what we send: the body-progress timeout, moved on by
    /// progress (request bytes in, response bytes out; never control frames).
    /// Only handlers or event streams at work: none.
    private func updateDeadline(_ conn: Connection, _ h2: HTTP2Session, progressed: Bool) {
        let kind: HTTP2Session.DeadlineKind
        if h2.streams.isEmpty {
            kind = .idle
        } else if h2.outputOffset < h2.output.count || h2.streams.values.contains(where: \.waitsOnClient) {
            kind = .waitingOnClient
        } else {
            kind = .serving
        }
        guard progressed || kind != h2.deadlineKind else { return }
        h2.deadlineKind = kind
        switch kind {
        case .none, .serving: conn.deadline = 0
        case .idle: conn.deadline = now + core.keepAliveTimeout
        case .waitingOnClient: conn.deadline = now + max(core.bodyProgressTimeout, core.writeProgressTimeout)
        }
    }

    // MARK: - Draining

    /// Timed out: GOAWAY, as far as the socket takes it at once, so the
    /// client knows no request of its was lost before the connection closes.
    func sayGoodbye(_ conn: Connection) {
        guard let h2 = conn.http2, let session = h2.session else { return }
        _ = nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
            NGHTTP2_NO_ERROR.rawValue, nil, 0)
        var progressed = false
        _ = sendHTTP2(conn, h2, progressed: &progressed)
    }

    /// GOAWAY: no new streams; those in flight finish, event streams end
    /// cleanly, and the connection closes when the last stream is done.
    func goAway(_ conn: Connection) {
        guard let h2 = conn.http2, let session = h2.session, !h2.goingAway else { return }
        h2.goingAway = true
        _ = nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
            NGHTTP2_NO_ERROR.rawValue, nil, 0)
        for stream in h2.streams.values where stream.state == .streaming {
            stream.eventsEnded = true
            stream.endReason = .serverShutdown
            if let events = stream.events {
                stream.events = nil
                events.ended(.serverShutdown)
            }
            _ = nghttp2_session_resume_data(session, stream.id)
        }
        processHTTP2(conn)
    }
}
