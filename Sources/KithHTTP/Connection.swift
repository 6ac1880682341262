import CKithShim
import Glibc

/// Identifies a connection across threads. File descriptors are reused as
/// soon as they are closed, so a worker finishing late for a connection that
/// is gone must not write to whichever connection now has its descriptor.
struct ConnectionID: Hashable, Sendable {
    let fd: Int32
    let generation: UInt32
}

/// One client connection. Owned by exactly one event loop and touched only on
/// its thread, so it needs no locking.
final class Connection {
    enum Phase {
        /// Waiting for (more of) a request head. Also the idle keep-alive phase.
        case readingHead
        /// Reading the body of `exchange`.
        case readingBody
        /// The handler is running on a worker.
        case awaitingHandler
        /// Sending a complete response.
        case writing
        /// Sending a long-lived response.
        case streaming
        /// Response sent and write side shut; reading and discarding until the
        /// client closes or the linger deadline passes.
        case lingering
    }

    let id: ConnectionID
    var phase = Phase.readingHead

    /// Received bytes not yet parsed: `input[inputStart...]`.
    var input: [UInt8] = []
    var inputStart = 0
    var parser: HTTPParser

    /// Output not yet sent: `output[outputOffset...]`, then `file`.
    var output: [UInt8] = []
    var outputOffset = 0
    var file: FileRegion?
    var fileSent: Int64 = 0

    /// Edge-triggered readiness: set by epoll, cleared when a call would block.
    var readable = true
    var writable = true

    /// When the current phase's deadline passes, in monotonic nanoseconds; 0 when none.
    var deadline: UInt64 = 0
    var exchange: Exchange?
    var stream: ResponseStream?
    /// Whether the connection stays open after the current response.
    var keepAlive = true
    /// Whether to half-close and drain after the current response instead of closing.
    var lingerAfterResponse = false

    private var cachedPeer: String?

    init(id: ConnectionID, limits: HTTPParser.Limits) {
        self.id = id
        parser = HTTPParser(limits: limits)
    }

    var hasBufferedInput: Bool { inputStart < input.count }
    var hasPendingOutput: Bool { outputOffset < output.count || file != nil }

    var peerAddress: String {
        if let cachedPeer { return cachedPeer }
        var buffer = [CChar](repeating: 0, count: 64)
        kith_peer_address(id.fd, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        cachedPeer = text
        return text
    }

    func consumeInput(_ count: Int) {
        inputStart += count
        if inputStart == input.count {
            // Idle connections hold no buffer: thousands of open streams stay cheap.
            input = []
            inputStart = 0
        } else if inputStart > 4096 && inputStart * 2 > input.count {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }

    func resetOutput() {
        output = []
        outputOffset = 0
        if let file { close(file.descriptor) }
        file = nil
        fileSent = 0
    }
}

/// The request being read or answered on a connection.
final class Exchange {
    /// nil when the head itself could not be parsed.
    let head: RequestHead?
    let route: Route?
    let parameters: PathParameters
    var routeIndex = -1
    let started: UInt64
    var body = BodySink.none
    var status = 0
    var bytesSent: Int64 = 0
    var bodyLength: Int64 = 0
    var headOnly: Bool { head?.method == .head }

    init(head: RequestHead?, route: Route?, parameters: PathParameters, started: UInt64) {
        self.head = head
        self.route = route
        self.parameters = parameters
        self.started = started
    }
}

/// Where body bytes go while they are read.
enum BodySink {
    case none
    case buffer([UInt8], limit: Int)
    case multipart(MultipartParser)

    /// Deletes any temporary files a multipart body created.
    mutating func abandon() {
        if case .multipart(var parser) = self { parser.discard() }
        self = .none
    }
}
