import CKithShim
import CLazyLibraries
import Glibc
import KithSync

/// One epoll loop on its own thread with its own listening socket. It reads,
/// parses and writes; handlers run on the worker pool unless their route is
/// marked inline. Connections are registered edge-triggered once and never
/// modified: the loop remembers readiness itself and reads or writes only
/// when the connection's phase wants to.
final class EventLoop: @unchecked Sendable {
    // Everything below except `inbox` is touched only on the loop's thread;
    // `inbox` is how other threads reach it. That split is why this class can
    // be @unchecked Sendable.
    private struct Inbox {
        var completions: [(ConnectionID, Response)] = []
        var admissions: [(ConnectionID, Admission)] = []
        var streams: [ConnectionID] = []
        var drain = false
        var stop = false
        /// The loop has ended and its descriptors are closed (or closing).
        var closed = false
        /// The loop is in (or about to enter) `epoll_wait` and must be woken
        /// through the eventfd. While it is busy it looks at the inbox after
        /// every pass anyway, so a worker's completion then costs no syscall.
        var sleeping = false
        /// The eventfd has been written since the loop last drained it.
        var signalled = false

        var isEmpty: Bool { completions.isEmpty && admissions.isEmpty && streams.isEmpty && !drain && !stop }
    }

    let core: ServerCore
    private let index: Int
    private let epoll: Int32
    private let wake: Int32
    private var listener: Int32
    /// The HTTPS port's socket; -1 without TLS.
    private var secureListener: Int32
    /// With HTTPS on: the origin the plain port redirects to, and the path
    /// prefixes it still answers itself.
    private let httpsRedirect: (origin: String, passThrough: [String])?
    private let inbox = Lock(Inbox())

    private var connections: [Connection?] = []
    private var openConnections = 0
    private var nextGeneration: UInt32 = 0
    private(set) var draining = false
    private(set) var now: UInt64 = 0
    private var nextSweep: UInt64 = 0
    /// When accepting resumes after running out of descriptors; 0 while accepting.
    private var acceptPausedUntil: UInt64 = 0
    private var cachedDateSecond = -1
    private var cachedDateLine: [UInt8] = []
    /// Reused for every read: connections copy only what they must keep.
    /// Not zero-filled: only bytes a read wrote are ever looked at, and
    /// untouched pages cost an idle server no memory.
    var scratch = [UInt8](unsafeUninitializedCapacity: 64 * 1024) { _, count in count = 64 * 1024 }

    private static let listenerTag: UInt64 = 1 << 40
    private static let wakeTag: UInt64 = 2 << 40
    private static let secureListenerTag: UInt64 = 3 << 40

    init(
        index: Int, core: ServerCore, listener: Int32, secureListener: Int32 = -1,
        httpsRedirect: (origin: String, passThrough: [String])? = nil
    ) throws(ServerError) {
        self.index = index
        self.core = core
        self.listener = listener
        self.secureListener = secureListener
        self.httpsRedirect = httpsRedirect
        epoll = kith_epoll_create()
        wake = kith_eventfd()
        guard epoll >= 0, wake >= 0 else { throw ServerError.system("epoll/eventfd", errno) }
        // The listener and the wake-up descriptor are level-triggered: accept and
        // drain are retried on every pass until they would block.
        _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, listener, KITH_EPOLLIN, Self.listenerTag)
        _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, wake, KITH_EPOLLIN, Self.wakeTag)
        if secureListener >= 0 {
            _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, secureListener, KITH_EPOLLIN, Self.secureListenerTag)
        }
    }

    // MARK: - Other threads

    /// A worker finished; the loop sends the response.
    func complete(_ id: ConnectionID, _ response: Response) {
        post { $0.completions.append((id, response)) }
    }

    /// The application decided whether a request may send its body.
    func admitted(_ id: ConnectionID, _ admission: Admission) {
        post { $0.admissions.append((id, admission)) }
    }

    func streamNeedsAttention(_ id: ConnectionID) {
        post { $0.streams.append(id) }
    }

    /// Many streams at once (one publish): one lock, at most one wake-up.
    func streamsNeedAttention(_ ids: [ConnectionID]) {
        post { $0.streams.append(contentsOf: ids) }
    }

    /// Stop accepting; finish what is in flight.
    func beginDrain() { post { $0.drain = true } }

    /// Close everything now and leave the loop.
    func stop() { post { $0.stop = true } }

    /// Signals inside the lock: once the loop has ended, its descriptor number
    /// may belong to another file, and a late worker must not write 8 bytes there.
    ///
    /// Only a loop that is waiting in `epoll_wait` is signalled, and only once
    /// until it drains the descriptor: a busy loop takes the whole inbox after
    /// its pass, so additions ride along. A publish to ten thousand streams
    /// costs at most one wake-up, and a completion under load none.
    private func post(_ change: (inout Inbox) -> Void) {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            change(&inbox)
            if inbox.sleeping && !inbox.signalled {
                inbox.signalled = true
                _ = kith_eventfd_signal(wake)
            }
        }
    }

    // MARK: - The loop

    func run() {
        LoopThread.markCurrent()
        var events = [UInt64](repeating: 0, count: 512)
        while true {
            // Announce the wait, unless work is already queued: from here a
            // post signals the eventfd, so nothing posted is left waiting.
            let hasWork = inbox.withLock { inbox -> Bool in
                if !inbox.isEmpty { return true }
                inbox.sleeping = true
                return false
            }
            let count = kith_epoll_wait(epoll, &events, 256, hasWork ? 0 : acceptPausedUntil == 0 ? 1000 : 50)
            if !hasWork { inbox.withLock { $0.sleeping = false } }
            now = kith_monotonic_nanos()
            for i in 0..<Int(max(count, 0)) {
                let data = events[2 * i]
                let flags = UInt32(truncatingIfNeeded: events[2 * i + 1])
                switch data {
                case Self.listenerTag: acceptConnections(from: listener, secure: false)
                case Self.secureListenerTag: acceptConnections(from: secureListener, secure: true)
                case Self.wakeTag:
                    _ = kith_eventfd_drain(wake)
                    inbox.withLock { $0.signalled = false }
                default: connectionEvent(fd: Int32(truncatingIfNeeded: data), flags: flags)
                }
            }
            // Whatever workers finished meanwhile, woken or not.
            let stopRequested = processInbox()
            if acceptPausedUntil != 0 && now >= acceptPausedUntil { resumeAccepting() }
            if now >= nextSweep {
                nextSweep = now + 1_000_000_000
                sweepDeadlines()
            }
            core.logger.flush()
            if stopRequested || (draining && openConnections == 0) { break }
        }
        for case let conn? in connections { closeConnection(conn, streamReason: .serverShutdown) }
        core.logger.flush()
        if listener >= 0 { close(listener) }
        if secureListener >= 0 { close(secureListener) }
        let abandoned = inbox.withLock { inbox -> [(ConnectionID, Response)] in
            inbox.closed = true
            return inbox.completions
        }
        for (_, response) in abandoned { Self.abandon(response) }
        close(wake)
        close(epoll)
    }

    private func processInbox() -> Bool {
        let work = inbox.withLock { inbox -> Inbox in
            var taken = Inbox()
            guard !inbox.isEmpty else { return taken }
            // Commands are one-shot: the loop keeps its own `draining` state.
            swap(&taken.completions, &inbox.completions)
            swap(&taken.admissions, &inbox.admissions)
            swap(&taken.streams, &inbox.streams)
            swap(&taken.drain, &inbox.drain)
            swap(&taken.stop, &inbox.stop)
            return taken
        }
        for (id, response) in work.completions {
            guard let conn = connection(id), conn.phase == .awaitingHandler else {
                Self.abandon(response)
                continue
            }
            startResponse(conn, response)
            process(conn)
        }
        for (id, admission) in work.admissions {
            guard let conn = connection(id), conn.phase == .admitting else { continue }
            admit(conn, admission)
            process(conn)
        }
        for id in work.streams {
            // An HTTP/2 connection is woken the same way, by its streams and its workers.
            guard let conn = connection(id), conn.phase == .streaming || conn.phase == .http2 else { continue }
            process(conn)
        }
        if work.drain && !draining { startDraining() }
        return work.stop
    }

    private func connection(_ id: ConnectionID) -> Connection? {
        guard Int(id.fd) < connections.count, let conn = connections[Int(id.fd)], conn.id == id else { return nil }
        return conn
    }

    private func startDraining() {
        draining = true
        if listener >= 0 {
            _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_DEL, listener, 0, 0)
            close(listener)
            listener = -1
        }
        if secureListener >= 0 {
            _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_DEL, secureListener, 0, 0)
            close(secureListener)
            secureListener = -1
        }
        for case let conn? in connections {
            switch conn.phase {
            case .readingHead where !conn.hasBufferedInput:
                closeConnection(conn)
            case .streaming:
                closeConnection(conn, streamReason: .serverShutdown)
            case .http2:
                goAway(conn)
            default:
                // In flight: finish this exchange, then close.
                conn.keepAlive = false
            }
        }
    }

    private func acceptConnections(from listener: Int32, secure: Bool) {
        while true {
            let fd = kith_accept(listener)
            if fd < 0 {
                // The listener is level-triggered: a connection left waiting
                // because no descriptor is free would wake this loop again at
                // once, forever. Stop listening for a moment instead.
                let code = errno
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM { pauseAccepting() }
                return  // EAGAIN, or a transient error: try again on the next event
            }
            guard !draining, core.reserveConnection() else {
                close(fd)
                continue
            }
            let peer = Connection.peerAddress(of: fd)
            var slot: String?
            if core.countsPerAddress(peer) {
                guard core.reserveAddressSlot(peer) else {
                    core.releaseConnection()
                    close(fd)
                    continue
                }
                slot = peer
            }
            _ = kith_set_nodelay(fd)
            nextGeneration &+= 1
            let conn = Connection(id: ConnectionID(fd: fd, generation: nextGeneration), limits: core.configuration.parserLimits)
            conn.addressSlot = slot
            if secure {
                conn.tls = core.configuration.tls?.certificates.session(on: fd, logger: core.logger)
            }
            // Prior knowledge is for cleartext; over TLS, ALPN says h2.
            conn.mayStartHTTP2 = core.configuration.http2 && !secure
            if Int(fd) >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 1 - connections.count + 64))
            }
            connections[Int(fd)] = conn
            openConnections += 1
            conn.deadline = now + core.headerTimeout
            let interest = KITH_EPOLLIN | KITH_EPOLLOUT | KITH_EPOLLRDHUP | KITH_EPOLLET
            if kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, fd, interest, UInt64(fd)) != 0 || (secure && conn.tls == nil) {
                closeConnection(conn)
                continue
            }
            // Clients usually send right after connecting; the edge for that data
            // may already have passed, so try a read now.
            process(conn)
        }
    }

    private func pauseAccepting() {
        guard acceptPausedUntil == 0, listener >= 0 else { return }
        _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_DEL, listener, 0, 0)
        if secureListener >= 0 { _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_DEL, secureListener, 0, 0) }
        acceptPausedUntil = now + 100_000_000
        core.logger.log(["level": "warn", "msg": "out of file descriptors; accepting paused for 100 ms"])
    }

    private func resumeAccepting() {
        acceptPausedUntil = 0
        guard listener >= 0 else { return }
        _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, listener, KITH_EPOLLIN, Self.listenerTag)
        if secureListener >= 0 {
            _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, secureListener, KITH_EPOLLIN, Self.secureListenerTag)
        }
    }

    private func connectionEvent(fd: Int32, flags: UInt32) {
        guard Int(fd) < connections.count, let conn = connections[Int(fd)] else { return }
        if flags & (KITH_EPOLLIN | KITH_EPOLLRDHUP | KITH_EPOLLHUP | KITH_EPOLLERR) != 0 { conn.readable = true }
        if flags & (KITH_EPOLLOUT | KITH_EPOLLHUP | KITH_EPOLLERR) != 0 { conn.writable = true }
        let hungUp = flags & (KITH_EPOLLRDHUP | KITH_EPOLLHUP | KITH_EPOLLERR) != 0
        if hungUp { conn.peerHungUp = true }
        switch conn.phase {
        case .http2:
            process(conn)
        case .streaming where hungUp:
            // An event stream's client only ever closes; nothing else arrives.
            closeConnection(conn, streamReason: .disconnected)
        case .admitting where hungUp, .awaitingHandler where hungUp:
            // The client hung up while its request waited: a handler that has
            // not started yet never will (browsers do not half-close, and a
            // flood of posts whose senders left should cost nothing).
            conn.exchange?.abandoned.set()
            closeConnection(conn)
        default:
            process(conn)
        }
    }

    private func sweepDeadlines() {
        for case let conn? in connections where conn.deadline != 0 && now >= conn.deadline {
            if conn.phase == .http2 { sayGoodbye(conn) }
            closeConnection(conn)
        }
    }

    // MARK: - Driving a connection

    /// Advances a connection as far as it can go without blocking.
    private func process(_ conn: Connection) {
        while true {
            switch conn.phase {
            case .readingHead:
                // ALPN chose h2 during the handshake: no HTTP/1.1 head will come.
                if conn.tls?.alpn == "h2" && conn.exchange == nil && core.configuration.http2 {
                    startHTTP2(conn)
                    continue
                }
                if !conn.hasBufferedInput {
                    guard readMore(conn) else { return }
                    continue
                }
                if conn.mayStartHTTP2 {
                    switch http2Preface(conn) {
                    case .complete where kith_lazy_nghttp2_available() != 0:
                        startHTTP2(conn)
                        continue
                    case .complete:
                        // Without libnghttp2 the preface is read as an HTTP/1.1
                        // request, which the parser refuses with a 4xx.
                        conn.mayStartHTTP2 = false
                    case .partial:
                        guard readMore(conn) else { return }
                        continue
                    case .absent: break
                    }
                }
                guard parseStep(conn) else { return }
            case .readingBody:
                guard parseStep(conn) else { return }
            case .awaitingHandler, .admitting:
                return
            case .writing:
                guard flush(conn) else { return }
                finishExchange(conn)
                if connections[Int(conn.id.fd)] !== conn { return }
            case .streaming:
                pumpStream(conn)
                return
            case .lingering:
                drainLingering(conn)
                return
            case .http2:
                processHTTP2(conn)
                return
            }
        }
    }

    /// Reads once. Returns true when bytes were added to the connection's input.
    private func readMore(_ conn: Connection) -> Bool {
        guard conn.readable else { return false }
        let wasEmpty = !conn.hasBufferedInput
        let n = receive(conn)
        if n > 0 {
            // A short read means the socket is drained: skip the read that would say EAGAIN.
            // (TLS clears the flag itself: a short record says nothing of the socket.)
            if n < scratch.count && conn.tls == nil { conn.readable = false }
            // Into the connection's kept buffer when it has room (see `Connection.keptBufferBytes`).
            conn.input.append(contentsOf: scratch[0..<n])
            if conn.phase == .readingHead && wasEmpty { conn.deadline = now + core.headerTimeout }
            if conn.phase == .readingBody { conn.deadline = now + core.bodyProgressTimeout }
            return true
        }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
            conn.readable = false
            return false
        }
        if n == TLSSession.blockedOtherWay { return false }
        // End of stream or a reset: the client is gone, and so is anything
        // partial. (A half-close counts as gone too; see `connectionEvent`.)
        closeConnection(conn)
        return false
    }

    /// One read into `scratch`, from the socket or through TLS.
    private func receive(_ conn: Connection) -> Int {
        if let tls = conn.tls { return scratch.withUnsafeMutableBytes { tls.read(into: $0, conn) } }
        return scratch.withUnsafeMutableBytes { read(conn.id.fd, $0.baseAddress!, $0.count) }
    }

    private enum Step {
        case event(HTTPParser.Event, consumed: Int)
        case failed(HTTPParseError)
        case sinkFailed(FormError)
    }

    /// Runs the parser once over the buffered input. Returns false when the
    /// connection must wait (for input, a worker or the socket).
    private func parseStep(_ conn: Connection) -> Bool {
        let step: Step = conn.input.withUnsafeBytes { raw in
            let available = UnsafeRawBufferPointer(rebasing: raw[conn.inputStart...])
            let result: (event: HTTPParser.Event, consumed: Int)
            do {
                result = try conn.parser.parse(available)
            } catch let error as HTTPParseError {
                return .failed(error)
            } catch {
                return .failed(HTTPParseError(.badRequest, "The request could not be read."))
            }
            if case .body(let range) = result.event, let exchange = conn.exchange {
                do {
                    try Self.feed(&exchange.body, UnsafeRawBufferPointer(rebasing: available[range]))
                } catch let error as FormError {
                    return .sinkFailed(error)
                } catch {
                    return .sinkFailed(FormError(.badRequest, "The form could not be read."))
                }
            }
            return .event(result.event, consumed: result.consumed)
        }
        switch step {
        case .failed(let error):
            conn.exchange?.abandonBody()
            respondEarly(conn, HTTPError(error.status, error.message), head: conn.exchange?.head)
            return true
        case .sinkFailed(let error):
            conn.exchange?.abandonBody()
            respondEarly(conn, HTTPError(error.status, error.message), head: conn.exchange?.head)
            return true
        case .event(let event, let consumed):
            conn.consumeInput(consumed)
            switch event {
            case .needMore:
                return readMore(conn)
            case .head(let head):
                beginExchange(conn, head)
                return true
            case .body:
                if let exchange = conn.exchange, let route = exchange.route {
                    // A chunked body says nothing of its size in the head: it
                    // is measured as it comes, against the same limits.
                    var limit = route.body.maxBytes
                    if case .buffer = exchange.body { limit = min(limit, route.body.maxBufferedBytes) }
                    if conn.parser.bodyBytesSoFar > limit {
                        exchange.abandonBody()
                        respondEarly(conn, Self.tooLarge(limit), head: exchange.head)
                    }
                }
                return true
            case .end:
                endOfRequest(conn)
                return true
            }
        }
    }

    static func feed(_ sink: inout BodySink, _ bytes: UnsafeRawBufferPointer) throws(FormError) {
        switch sink {
        case .none:
            return
        case .buffer(var buffer, let limit):
            // Move the array out of the enum so appending does not copy it.
            sink = .none
            buffer.append(contentsOf: bytes)
            sink = .buffer(buffer, limit: limit)
        case .multipart(var parser):
            sink = .none
            do {
                try parser.feed(bytes)
            } catch {
                parser.discard()
                throw error
            }
            sink = .multipart(parser)
        }
    }

    static func tooLarge(_ limit: Int) -> HTTPError {
        HTTPError(.contentTooLarge, "That's more than we can take in one go (the limit here is \(ByteCount.format(limit))).")
    }

    // MARK: - Exchanges

    /// Beside an HTTPS port, where the plain port sends a request instead of
    /// serving it (nil: serve it — HTTPS itself, or a pass-through path).
    func httpsLocation(_ conn: Connection, _ head: RequestHead) -> String? {
        guard let redirect = httpsRedirect, conn.tls == nil, !redirect.passThrough.contains(where: { head.path.hasPrefix($0) }) else {
            return nil
        }
        return redirect.origin + head.path + (head.query.map { "?" + $0 } ?? "")
    }

    private func beginExchange(_ conn: Connection, _ head: RequestHead) {
        conn.mayStartHTTP2 = false
        conn.keepAlive = head.keepAlive && !draining
        conn.lingerAfterResponse = false
        let hasBody = Self.announcesBody(head)
        if let location = httpsLocation(conn, head) {
            answerEarly(conn, .redirect(to: location, status: .permanentRedirect), head: head, bodyFollows: hasBody)
            return
        }

        switch routing(head) {
        case .refused(let error):
            respondEarly(conn, error, head: head, bodyFollows: hasBody)
        case .matched(let route, let parameters, let index):
            let exchange = makeExchange(conn, head, route, parameters, index)
            conn.exchange = exchange
            if hasBody, let refusal = Self.refusal(of: head, by: route.body) {
                respondEarly(conn, refusal, head: head, bodyFollows: true)
                return
            }
            if hasBody {
                // Nothing of the body is read until the application has seen
                // the head and said yes: a stranger's upload costs one lookup.
                conn.phase = .admitting
                conn.deadline = now + core.bodyProgressTimeout
                let request = Request(head: head, route: route, parameters: parameters, remoteAddress: exchange.clientAddress)
                if !submitAdmission(request, abandoned: exchange.abandoned, reply: .http1(conn.id)) {
                    respondEarly(conn, Self.busy, head: head, bodyFollows: true)
                }
            } else {
                conn.phase = .readingBody  // the parser still reports .end
                conn.deadline = now + core.bodyProgressTimeout
            }
        }
    }

    /// Which route a head asks for, or the error that answers it unrouted.
    /// HTTP/1.1 and HTTP/2 route the same way.
    enum Routing {
        case matched(Route, PathParameters, Int)
        case refused(HTTPError)
    }

    func routing(_ head: RequestHead) -> Routing {
        switch core.responder.decide(method: head.method, path: head.path) {
        case .notFound:
            return .refused(.notFound())
        case .badPath:
            return .refused(.badRequest("That address isn't one we understand."))
        case .methodNotAllowed(let allowed):
            var headers = HTTPHeaders()
            headers.add("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            return .refused(HTTPError(.methodNotAllowed, "That action isn't available here.", headers: headers))
        case .matched(let route, let parameters, let index):
            return .matched(route, parameters, index)
        }
    }

    static func announcesBody(_ head: RequestHead) -> Bool {
        switch head.framing {
        case .none, .length(0): false
        default: true
        }
    }

    /// The exchange of a routed request, from whoever sent it: the peer, or
    /// the client a trusted proxy names.
    func makeExchange(_ conn: Connection, _ head: RequestHead, _ route: Route, _ parameters: PathParameters, _ index: Int) -> Exchange {
        let exchange = Exchange(head: head, route: route, parameters: parameters, started: now)
        exchange.routeIndex = index
        exchange.clientAddress = core.clientAddress(peer: conn.peerAddress, headers: head.headers)
        return exchange
    }

    /// Where a worker's answer goes: an HTTP/1.1 connection, or one stream of an HTTP/2 one.
    enum Reply {
        case http1(ConnectionID)
        case http2(HTTP2Mailbox, Int32)
    }

    /// Asks the application, on a worker, whether a request may send its body.
    func submitAdmission(_ request: Request, abandoned: AbandonFlag, reply: Reply) -> Bool {
        let responder = core.responder
        return core.workers.submit { [self] in
            // A client that left is closed already: nothing to decide.
            guard !abandoned.isSet else { return }
            let admission = responder.admit(request)
            switch reply {
            case .http1(let id): admitted(id, admission)
            case .http2(let mailbox, let stream): mailbox.post(stream, .admission(admission))
            }
        }
    }

    /// What the head alone says against reading a body: too large for the
    /// route, or not the kind of body the route takes. Decided before any
    /// byte of it is read.
    static func refusal(of head: RequestHead, by policy: BodyPolicy) -> HTTPError? {
        if policy.maxBytes == 0 { return tooLarge(0) }
        let contentType = head.headers["Content-Type"] ?? ""
        let isMultipart = MultipartParser.boundary(fromContentType: contentType) != nil
        if policy.maxFileBytes > 0 && !isMultipart && !(policy.acceptsURLEncoded && Self.isURLEncoded(contentType)) {
            return HTTPError(.unsupportedMediaType, "This form sends files, so it has to be sent as a multipart form.")
        }
        if case .length(let length) = head.framing, length > policy.maxBytes { return tooLarge(policy.maxBytes) }
        // Anything but multipart is held in memory whole: the route's
        // in-memory limit applies to it from the head.
        if !isMultipart, case .length(let length) = head.framing, length > policy.maxBufferedBytes {
            return tooLarge(policy.maxBufferedBytes)
        }
        return nil
    }

    static let busy: HTTPError = {
        var headers = HTTPHeaders()
        headers.add("Retry-After", "5")
        return HTTPError(.serviceUnavailable, "Kith is very busy right now. Please try again in a moment.", headers: headers)
    }()

    /// The application's answer to a head: refuse it unread, or start reading.
    private func admit(_ conn: Connection, _ admission: Admission) {
        guard let exchange = conn.exchange, let head = exchange.head, let route = exchange.route else { return }
        switch admission {
        case .refuse(let error):
            respondEarly(conn, error, head: head, bodyFollows: true)
        case .proceed(let firstField):
            exchange.body = makeSink(head, route.body, exchange: exchange, firstField: firstField)
            if head.expectsContinue { queueInterim(conn) }
            conn.phase = .readingBody
            conn.deadline = now + core.bodyProgressTimeout
        }
    }

    func makeSink(
        _ head: RequestHead, _ policy: BodyPolicy, exchange: Exchange,
        firstField: RequiredField?
    ) -> BodySink {
        let contentType = head.headers["Content-Type"] ?? ""
        if let boundary = MultipartParser.boundary(fromContentType: contentType) {
            var parser = MultipartParser(
                boundary: boundary, temporaryDirectory: core.configuration.temporaryDirectory,
                limits: MultipartParser.Limits(
                    maxFiles: policy.maxFiles,
                    maxFieldBytes: policy.maxBufferedBytes,
                    maxFileBytes: Int64(policy.maxFileBytes),
                    maxTotalFileBytes: Int64(policy.maxFileBytes) * Int64(max(policy.maxFiles, 1))))
            if let firstField {
                parser.requireFirstField(
                    firstField.name, refusal: FormError(firstField.refusal.status, firstField.refusal.message),
                    accepts: firstField.accepts)
            }
            if policy.maxFileBytes > 0 {
                let reservation = UploadReservation(budget: core.uploads, address: exchange.clientAddress)
                exchange.reservation = reservation
                parser.reservation = reservation
            }
            return .multipart(parser)
        }
        var initial: [UInt8] = []
        if case .length(let length) = head.framing { initial.reserveCapacity(min(length, policy.maxBufferedBytes)) }
        return .buffer(initial, limit: policy.maxBufferedBytes)
    }

    /// `100 Continue`, so a client that asked waits no longer before sending the body.
    private func queueInterim(_ conn: Connection) {
        conn.output.append(contentsOf: Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        _ = flush(conn)
    }

    /// The whole request is in: build it and hand it to a handler.
    private func endOfRequest(_ conn: Connection) {
        guard let exchange = conn.exchange, let route = exchange.route, let head = exchange.head else { return }
        let request: Request
        do {
            request = try Self.assembleRequest(exchange, head: head, route: route)
        } catch {
            exchange.abandonBody()
            respondEarly(conn, HTTPError(error.status, error.message), head: head)
            return
        }
        conn.phase = .awaitingHandler
        conn.deadline = 0
        if conn.peerHungUp && !route.runsInline {
            // The request and the hang-up came in one read: nobody waits for
            // the answer, so nothing runs (see the `.awaitingHandler` case).
            exchange.abandoned.set()
            closeConnection(conn)
            return
        }
        // From here the request's files, and the disk space they hold, belong
        // to whoever runs the handler.
        let reservation = exchange.reservation
        exchange.reservation = nil
        if route.runsInline {
            let response = core.responder.respond(to: request)
            Self.cleanUp(request, reservation)
            startResponse(conn, response)
            return
        }
        if !submitHandler(request, reservation: reservation, abandoned: exchange.abandoned, reply: .http1(conn.id)) {
            respondEarly(conn, Self.busy, head: head)
        }
    }

    /// The request a handler sees, from an exchange whose body is all in:
    /// the query and any form parsed, the multipart parser's files kept.
    static func assembleRequest(_ exchange: Exchange, head: RequestHead, route: Route) throws(FormError) -> Request {
        var query = FormData()
        if let text = head.query { query = try FormData.parseURLEncoded(Array(text.utf8)) }
        var form = FormData()
        var body: [UInt8] = []
        switch exchange.body {
        case .buffer(let bytes, _):
            let contentType = head.headers["Content-Type"] ?? ""
            if isURLEncoded(contentType) {
                form = try FormData.parseURLEncoded(bytes)
            } else {
                body = bytes
            }
        case .multipart(var parser):
            exchange.body = .none
            form = try parser.finish()
        case .none:
            break
        }
        let request = Request(
            head: head, route: route, parameters: exchange.parameters, query: query, form: form, body: body,
            remoteAddress: exchange.clientAddress, routeIndex: exchange.routeIndex)
        exchange.body = .none
        return request
    }

    /// Runs a handler on a worker and sends its response to `reply`. When
    /// the queue is full nothing runs, the request's files are gone, and the
    /// caller answers 503.
    func submitHandler(_ request: Request, reservation: UploadReservation?, abandoned: AbandonFlag, reply: Reply) -> Bool {
        let responder = core.responder
        let compressor = core.configuration.compression
        let accepted = core.workers.submit { [self, request] in
            if abandoned.isSet {
                Self.cleanUp(request, reservation)
                return
            }
            var response = responder.respond(to: request)
            // Here, on the worker, so the I/O thread never spends time compressing.
            if let compressor { response = compressor.apply(response, to: request.head) }
            Self.cleanUp(request, reservation)
            switch reply {
            case .http1(let id): complete(id, response)
            case .http2(let mailbox, let stream): mailbox.post(stream, .response(response))
            }
        }
        if !accepted { Self.cleanUp(request, reservation) }
        return accepted
    }

    /// Uploads the handler kept were moved away; the rest go now, and with
    /// them the request's claim on upload space.
    static func cleanUp(_ request: Request, _ reservation: UploadReservation?) {
        for file in request.form.allFiles { unlink(file.path) }
        reservation?.releaseAll()
    }

    static func isURLEncoded(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingASCIISpaces().lowercased() }
        return mediaType == "application/x-www-form-urlencoded"
    }

    /// Answers without running a handler. When a body may still be on its way,
    /// the connection is half-closed and drained afterwards so the client reads
    /// the answer instead of a reset.
    private func respondEarly(_ conn: Connection, _ error: HTTPError, head: RequestHead?, bodyFollows: Bool = true) {
        answerEarly(conn, core.responder.errorResponse(error, head: head), head: head, bodyFollows: bodyFollows)
    }

    private func answerEarly(_ conn: Connection, _ response: Response, head: RequestHead?, bodyFollows: Bool) {
        if conn.exchange == nil || conn.exchange?.head == nil {
            conn.exchange = Exchange(head: head, route: nil, parameters: PathParameters(), started: now)
        }
        if bodyFollows {
            conn.keepAlive = false
            conn.lingerAfterResponse = true
        } else {
            // The request had no body: start the next message from a clean parser
            // rather than stepping this one to its end.
            conn.parser = HTTPParser(limits: core.configuration.parserLimits)
        }
        conn.phase = .awaitingHandler
        startResponse(conn, response)
    }

    // MARK: - Writing

    private func startResponse(_ conn: Connection, _ response: Response) {
        guard let exchange = conn.exchange else {
            Self.abandon(response)
            closeConnection(conn)
            return
        }
        exchange.status = response.status.code
        let status = response.status.code
        let bodyAllowed = !(100..<200).contains(status) && status != 204 && status != 304
        var length: Int64 = 0
        var streaming = false
        switch response.body {
        case .bytes(let bytes): length = Int64(bytes.count)
        case .file(let region): length = region.length
        case .segments(let parts): length = parts.reduce(0) { $0 + $1.length }
        case .stream:
            streaming = true
            conn.keepAlive = false
        }
        if let connection = response.headers["Connection"], connection.lowercased() == "close" { conn.keepAlive = false }

        conn.resetOutput()
        var out: [UInt8] = []
        swap(&out, &conn.output)
        out.reserveCapacity(512)
        writeHead(
            into: &out, response, exchange: exchange, contentLength: streaming || !bodyAllowed ? nil : length,
            keepAlive: conn.keepAlive, secure: conn.tls != nil)
        exchange.bodyLength = bodyAllowed && !exchange.headOnly ? length : 0
        let sendBody = bodyAllowed && !exchange.headOnly
        switch response.body {
        case .bytes(let bytes):
            // Not copied behind the head: the two go out in one gathered send.
            if sendBody {
                conn.body = bytes
                conn.bodyOffset = 0
            }
        case .file(let region):
            if sendBody && region.length > 0 {
                conn.file = region
                conn.fileSent = 0
            } else {
                close(region.descriptor)
            }
        case .segments(let parts):
            if sendBody {
                conn.segments = parts
                conn.nextSegment = 0
            }
        case .stream(let start):
            conn.output = out
            conn.releaseBuffers()
            conn.phase = .streaming
            if exchange.headOnly {
                conn.phase = .writing
                return
            }
            let stream = ResponseStream(loop: self, connection: conn.id, maxUnsentBytes: core.configuration.maxStreamUnsentBytes)
            conn.stream = stream
            logExchange(conn)
            // Logged, and nothing more is read: the request's head need not
            // stay in memory for the hours a stream may last.
            conn.exchange = nil
            start(stream)
            return
        }
        conn.output = out
        conn.phase = .writing
        conn.deadline = now + core.writeProgressTimeout
    }

    private func writeHead(
        into out: inout [UInt8], _ response: Response, exchange: Exchange, contentLength: Int64?, keepAlive: Bool, secure: Bool
    ) {
        out.append(contentsOf: Self.statusLine(response.status))
        for (name, value) in response.headers {
            guard Self.isSafeHeader(name, value) else {
                core.logger.log(["level": "error", "msg": "dropped a response header with control characters", "header": name])
                continue
            }
            if HTTPHeaders.equal(name, "Content-Length") || HTTPHeaders.equal(name, "Connection") { continue }
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: Self.colonSpace)
            out.append(contentsOf: value.utf8)
            out.append(contentsOf: Self.crlf)
        }
        out.append(contentsOf: response.prepared.lines)
        for field in core.connectionFields(secure: secure)[response.kind] where !response.headers.contains(field.name) {
            out.append(contentsOf: field.line)
        }
        if let contentLength {
            out.append(contentsOf: Self.contentLengthPrefix)
            Self.appendDecimal(contentLength, to: &out)
            out.append(contentsOf: Self.crlf)
        }
        if !keepAlive {
            out.append(contentsOf: Self.connectionClose)
        } else if exchange.head?.minorVersion == 0 {
            out.append(contentsOf: Self.connectionKeepAlive)
        }
        out.append(contentsOf: dateLine())
        out.append(contentsOf: Self.crlf)
    }

    /// Digits straight into the head: formatting a String first cost more
    /// than the rest of the Content-Length line.
    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        precondition(value >= 0, "a length is never negative")
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for Int64.max's 19 digits
        var remaining = UInt64(value)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                count += 1
                buffer[24 - count] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]))
        }
    }

    private static let crlf: [UInt8] = [13, 10]
    private static let colonSpace: [UInt8] = [58, 32]
    private static let contentLengthPrefix = Array("Content-Length: ".utf8)
    private static let connectionClose = Array("Connection: close\r\n".utf8)
    private static let connectionKeepAlive = Array("Connection: keep-alive\r\n".utf8)
    private static let okLine = Array("HTTP/1.1 200 OK\r\n".utf8)
    private static let commonStatusLines: [HTTPStatus: [UInt8]] = Dictionary(
        uniqueKeysWithValues: [HTTPStatus.seeOther, .notModified, .notFound, .partialContent].map {
            ($0, Array("HTTP/1.1 \($0.code) \($0.reason)\r\n".utf8))
        })

    private static func statusLine(_ status: HTTPStatus) -> [UInt8] {
        // 200 without hashing its reason phrase: most responses are one.
        if status.code == 200 && status.reason == "OK" { return okLine }
        return commonStatusLines[status] ?? Array("HTTP/1.1 \(status.code) \(status.reason)\r\n".utf8)
    }

    static func isSafeHeader(_ name: String, _ value: String) -> Bool {
        !name.utf8.contains { $0 <= 0x20 || $0 == 0x3A || $0 >= 0x7F } && !name.isEmpty
            && !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    private func dateLine() -> [UInt8] {
        let second = HTTPDate.now()
        if second != cachedDateSecond {
            cachedDateSecond = second
            cachedDateLine = Array("Date: \(HTTPDate.format(second))\r\n".utf8)
        }
        return cachedDateLine
    }

    /// Sends what it can. Returns true once everything queued has been sent.
    private func flush(_ conn: Connection) -> Bool {
        while true {
            guard flushLoaded(conn) else { return false }
            switch conn.loadNextSegment() {
            case nil: return true
            case true?: continue
            case false?:
                // The file changed or went since the response was planned:
                // the promised length cannot be kept, so end the connection.
                closeConnection(conn)
                return false
            }
        }
    }

    /// Sends `output` and `body`, then `file`. Returns true once all are sent.
    private func flushLoaded(_ conn: Connection) -> Bool {
        while conn.outputOffset < conn.output.count || conn.bodyOffset < conn.body.count {
            guard conn.writable else { return false }
            let n = Self.sendBuffered(conn)
            if n > 0 {
                let fromOutput = min(n, conn.output.count - conn.outputOffset)
                conn.outputOffset += fromOutput
                conn.bodyOffset += n - fromOutput
                conn.exchange?.bytesSent += Int64(n)
                conn.deadline = conn.phase == .writing ? now + core.writeProgressTimeout : conn.deadline
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                conn.writable = false
                return false
            } else if n == TLSSession.blockedOtherWay {
                return false
            } else {
                closeConnection(conn, streamReason: .disconnected)
                return false
            }
        }
        if conn.outputOffset > 0 { conn.clearOutput() }
        if conn.bodyOffset > 0 {
            conn.body = []
            conn.bodyOffset = 0
        }
        while let file = conn.file {
            guard conn.writable else { return false }
            let n: Int
            if let tls = conn.tls {
                n = tls.sendFile(file, sent: conn.fileSent, conn)
            } else {
                var offset = file.offset + conn.fileSent
                let remaining = file.length - conn.fileSent
                n = kith_sendfile(conn.id.fd, file.descriptor, &offset, Int(min(remaining, 1 << 20)))
            }
            if n > 0 {
                conn.fileSent += Int64(n)
                conn.exchange?.bytesSent += Int64(n)
                conn.deadline = now + core.writeProgressTimeout
                if conn.fileSent == file.length {
                    close(file.descriptor)
                    conn.file = nil
                }
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                conn.writable = false
                return false
            } else if n == TLSSession.blockedOtherWay {
                return false
            } else {
                // The file shrank under us or the peer left: the promised length cannot be kept.
                closeConnection(conn)
                return false
            }
        }
        return true
    }

    /// One `send` of what is left of `output` and `body`: `sendmsg` with
    /// both when both have bytes, so a head and its body leave together.
    private static func sendBuffered(_ conn: Connection) -> Int {
        if let tls = conn.tls { return tls.sendBuffered(conn) }
        let fd = conn.id.fd
        let outputLeft = conn.output.count - conn.outputOffset
        let bodyLeft = conn.body.count - conn.bodyOffset
        if bodyLeft == 0 {
            return conn.output.withUnsafeBytes { kith_send(fd, $0.baseAddress! + conn.outputOffset, outputLeft) }
        }
        return conn.body.withUnsafeBytes { body in
            let bodyStart = UnsafeMutableRawPointer(mutating: body.baseAddress! + conn.bodyOffset)
            if outputLeft == 0 { return kith_send(fd, bodyStart, bodyLeft) }
            return conn.output.withUnsafeBytes { output in
                var vectors = (
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: output.baseAddress! + conn.outputOffset), iov_len: outputLeft),
                    iovec(iov_base: bodyStart, iov_len: bodyLeft))
                return withUnsafeMutableBytes(of: &vectors) { raw in
                    var message = msghdr()
                    message.msg_iov = raw.baseAddress!.assumingMemoryBound(to: iovec.self)
                    message.msg_iovlen = 2
                    var sent: Int
                    repeat { sent = sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) } while sent < 0 && errno == EINTR
                    return sent
                }
            }
        }
    }

    /// Sends what the stream has queued, after anything an earlier send left.
    /// One drain per wake-up is enough: draining re-arms the stream's wake-up,
    /// so bytes written after it bring the loop back here.
    private func pumpStream(_ conn: Connection) {
        guard let stream = conn.stream, !conn.hasPendingOutput || flush(conn) else { return }
        let (bytes, closed) = stream.drain()
        if !bytes.isEmpty && !sendStreamBytes(conn, bytes) { return }
        if closed { closeConnection(conn, streamReason: stream.closeReason ?? .finished) }
    }

    /// The common case of a publish, made cheap: nothing of an earlier event
    /// waits, so the bytes (often one buffer shared by every stream) go
    /// straight to the socket in one non-blocking send, without passing
    /// through the connection's output. Only what the socket does not take is
    /// kept, for when it is writable again; a consumer that stays behind is
    /// then capped by the stream's `maxUnsentBytes`. Returns true when all of
    /// `bytes` went out.
    private func sendStreamBytes(_ conn: Connection, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        if conn.writable {
            let n = bytes.withUnsafeBytes { raw in
                if let tls = conn.tls { return tls.write(raw.baseAddress!, raw.count, conn) }
                return kith_send(conn.id.fd, raw.baseAddress!, raw.count)
            }
            if n > 0 {
                if n == bytes.count { return true }
                sent = n
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                conn.writable = false
            } else if n == TLSSession.blockedOtherWay {
                // Kept below, for when the read OpenSSL waits for arrives.
            } else {
                closeConnection(conn, streamReason: .disconnected)
                return false
            }
        }
        conn.output = bytes
        conn.outputOffset = sent
        // After a short send this finds the socket full and waits for its edge.
        return flush(conn)
    }

    private func drainLingering(_ conn: Connection) {
        while conn.readable {
            let n = receive(conn)
            if n > 0 { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                conn.readable = false
                return
            }
            if n == TLSSession.blockedOtherWay { return }
            closeConnection(conn)
            return
        }
    }

    /// The response is fully sent: log it and get ready for the next request.
    private func finishExchange(_ conn: Connection) {
        logExchange(conn)
        conn.exchange = nil
        conn.resetOutput()
        if conn.lingerAfterResponse {
            conn.tls?.shutdownWrite()
            _ = kith_shutdown_write(conn.id.fd)
            conn.phase = .lingering
            conn.deadline = now + core.lingerTimeout
            conn.input = []
            conn.inputStart = 0
            return
        }
        if !conn.keepAlive || (draining && !conn.hasBufferedInput) {
            closeConnection(conn)
            return
        }
        conn.phase = .readingHead
        conn.deadline = now + (conn.hasBufferedInput ? core.headerTimeout : core.keepAliveTimeout)
    }

    private func logExchange(_ conn: Connection) {
        guard let exchange = conn.exchange else { return }
        log(exchange)
    }

    func log(_ exchange: Exchange, protocol: String? = nil) {
        guard core.logger.enabled else { return }
        let micros = String((now &- exchange.started) / 1000)
        let method = exchange.head?.method.rawValue ?? "-"
        let route = exchange.route.map { $0.pattern.description } ?? "-"
        if let `protocol` {
            core.logger.log([
                "method": method, "route": route, "status": String(exchange.status),
                "bytes": String(exchange.bodyLength), "dur_us": micros, "proto": `protocol`,
            ])
            return
        }
        core.logger.log([
            "method": method,
            "route": route,
            "status": String(exchange.status),
            "bytes": String(exchange.bodyLength),
            "dur_us": micros,
        ])
    }

    func closeConnection(_ conn: Connection, streamReason: ResponseStream.CloseReason = .disconnected) {
        guard Int(conn.id.fd) < connections.count, connections[Int(conn.id.fd)] === conn else { return }
        connections[Int(conn.id.fd)] = nil
        openConnections -= 1
        core.releaseConnection()
        if let slot = conn.addressSlot { core.releaseAddressSlot(slot) }
        conn.exchange?.abandoned.set()
        conn.exchange?.abandonBody()
        conn.resetOutput()
        conn.tls?.close()
        close(conn.id.fd)
        if let session = conn.http2 {
            conn.http2 = nil
            session.close(streamReason)
        }
        if let stream = conn.stream {
            conn.stream = nil
            stream.ended(stream.closeReason ?? streamReason)
        }
    }

    static func abandon(_ response: Response) {
        if case .file(let region) = response.body { close(region.descriptor) }
    }
}
