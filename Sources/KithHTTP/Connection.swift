import CKithShim
import Glibc
import Synchronization

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
        /// The head is in and the application is deciding, on a worker,
        /// whether this request may send its body; nothing more is read.
        case admitting
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
        /// Speaking HTTP/2: `http2` has the connection from here to its end.
        case http2
    }

    let id: ConnectionID
    var phase = Phase.readingHead

    /// Received bytes not yet parsed: `input[inputStart...]`.
    var input: [UInt8] = []
    var inputStart = 0
    var parser: HTTPParser

    /// Output not yet sent: `output[outputOffset...]`, then `body[bodyOffset...]`, then `file`.
    var output: [UInt8] = []
    var outputOffset = 0
    /// A response body sent from the handler's own storage (a static asset's
    /// bytes are shared, not copied), gathered with the head into one send.
    var body: [UInt8] = []
    var bodyOffset = 0
    var file: FileRegion?
    var fileSent: Int64 = 0
    /// What is left of a `.segments` body after `output` and `file`.
    var segments: [BodySegment] = []
    var nextSegment = 0

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
    /// The client closed its side (or the connection broke): whatever it
    /// asked for has nobody to answer.
    var peerHungUp = false
    /// The address whose per-address slot this connection holds, if any.
    var addressSlot: String?
    /// Set for connections accepted on the HTTPS port: every byte then goes
    /// through it instead of the socket (one branch per read or send).
    var tls: TLSSession?
    /// The protocol ALPN settled on (`http/1.1`, `h2`); nil on cleartext.
    var alpn: String? { tls?.alpn }
    /// No request has been read yet, so the client may still open with the
    /// HTTP/2 preface (prior knowledge). Cleared by the first HTTP/1.1 head.
    var mayStartHTTP2 = false
    var http2: HTTP2Session?

    init(id: ConnectionID, limits: HTTPParser.Limits) {
        self.id = id
        parser = HTTPParser(limits: limits)
    }

    var hasBufferedInput: Bool { inputStart < input.count }
    var hasPendingOutput: Bool {
        outputOffset < output.count || bodyOffset < body.count || file != nil || nextSegment < segments.count
    }

    var peerAddress: String {
        if let cachedPeer { return cachedPeer }
        let text = Self.peerAddress(of: id.fd)
        cachedPeer = text
        return text
    }

    static func peerAddress(of fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        kith_peer_address(fd, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Buffers up to this size are kept between requests, so a keep-alive
    /// client's next small request or response allocates nothing; larger
    /// ones are freed, and a connection that starts streaming or lingering
    /// drops both (`releaseBuffers`), so thousands of open streams stay cheap.
    static let keptBufferBytes = 1024

    func consumeInput(_ count: Int) {
        inputStart += count
        if inputStart == input.count {
            input.removeAll(keepingCapacity: input.capacity <= Self.keptBufferBytes)
            inputStart = 0
        } else if inputStart > 4096 && inputStart * 2 > input.count {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }

    /// Empties `output`, keeping a small buffer for the next response head.
    func clearOutput() {
        output.removeAll(keepingCapacity: output.capacity <= Self.keptBufferBytes)
        outputOffset = 0
    }

    /// A long-lived or closing connection keeps no spare capacity.
    func releaseBuffers() {
        if input.isEmpty { input = [] }
        if output.isEmpty { output = [] }
    }

    func resetOutput() {
        clearOutput()
        body = []
        bodyOffset = 0
        if let file { close(file.descriptor) }
        file = nil
        tls?.dropFileChunk()
        fileSent = 0
        segments = []
        nextSegment = 0
    }

    /// Moves the next segment into `output` or `file`. Returns false when
    /// there is none, or when its file cannot be sent as promised.
    func loadNextSegment() -> Bool? {
        guard nextSegment < segments.count else { return nil }
        let segment = segments[nextSegment]
        nextSegment += 1
        switch segment {
        case .bytes(let bytes):
            output = bytes
            outputOffset = 0
            return true
        case .file(let path, let length):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            var info = stat()
            guard fstat(fd, &info) == 0, Int64(info.st_size) == length else {
                close(fd)
                return false
            }
            file = length > 0 ? FileRegion(descriptor: fd, offset: 0, length: length) : nil
            if length == 0 { close(fd) }
            fileSent = 0
            return true
        }
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
    /// Who sent it: the peer, or the client a trusted proxy names.
    var clientAddress = ""
    /// The disk space its uploads hold while it lasts.
    var reservation: UploadReservation?
    /// Set when the client leaves before its handler ran, so the handler never does.
    /// Made when first asked for (always on the I/O thread): only requests
    /// that go to a worker need one, not those answered on the loop.
    lazy var abandoned = AbandonFlag()
    var headOnly: Bool { head?.method == .head }

    /// Deletes what the body wrote so far and gives back its upload space.
    func abandonBody() {
        body.abandon()
        reservation?.releaseAll()
        reservation = nil
    }

    init(head: RequestHead?, route: Route?, parameters: PathParameters, started: UInt64) {
        self.head = head
        self.route = route
        self.parameters = parameters
        self.started = started
    }
}

/// Shared between the I/O thread, which sets it when a client goes away,
/// and the worker about to run that client's handler, which then skips it:
/// a burst of requests whose clients left costs no work.
final class AbandonFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
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
