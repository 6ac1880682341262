import KithSync

/// The open end of a long-lived response. Any thread may write; the bytes are
/// handed to the connection's event loop, which sends them. Unsent bytes are
/// capped: a consumer that stops reading is dropped, not buffered without end.
public final class ResponseStream: Sendable {
    struct State {
        var pending: [UInt8] = []
        var closed = false
        /// The loop has been told there is something to do and has not yet looked.
        var wakeQueued = false
        var onClose: [@Sendable () -> Void] = []
        var reason: CloseReason?
        /// The connection is gone and the callbacks have run.
        var ended = false
    }

    public enum CloseReason: Sendable, Equatable {
        /// The server side called `close()`.
        case finished
        /// The client went away.
        case disconnected
        /// More than `maxUnsentBytes` waited to be sent.
        case slowConsumer
        case serverShutdown
    }

    let state = Lock(State())
    let connection: ConnectionID
    let loop: EventLoop
    public let maxUnsentBytes: Int

    init(loop: EventLoop, connection: ConnectionID, maxUnsentBytes: Int) {
        self.loop = loop
        self.connection = connection
        self.maxUnsentBytes = maxUnsentBytes
    }

    /// Queues bytes. Returns false when the stream is closed — or is closed by
    /// this write because the consumer has fallen too far behind.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let (accepted, wake) = enqueue(bytes)
        if wake { loop.streamNeedsAttention(connection) }
        return accepted
    }

    /// The same bytes to many streams, as one publish does: each stream queues
    /// them (sharing the one buffer while its queue was empty), and each event
    /// loop is told about its streams that need sending a batch at a time,
    /// instead of once per stream. Returns the streams that refused the bytes.
    ///
    /// A batch, not the whole list: a loop told only at the end would sit idle
    /// while ten thousand streams are queued, and every stream's send would
    /// wait for that pass. Told every `wakeBatch` streams, each loop starts
    /// sending its share while the rest are still being queued; a loop already
    /// busy takes later batches after its pass, at no extra wake-up.
    ///
    /// An array, not any sequence: a generic parameter is not specialised
    /// across modules, and unspecialised iteration cost more per stream
    /// (witness calls, type lookups, a heap-allocated accessor frame each)
    /// than the enqueue itself, all before any loop could start sending.
    @discardableResult
    public static func write(_ bytes: [UInt8], to streams: [ResponseStream]) -> [ResponseStream] {
        var refused: [ResponseStream] = []
        // One entry per event loop, and there are a handful: a linear search
        // by identity costs less per stream than hashing.
        var wakes: [(loop: EventLoop, ids: [ConnectionID])] = []
        for stream in streams {
            let (accepted, wake) = stream.enqueue(bytes)
            if !accepted { refused.append(stream) }
            guard wake else { continue }
            let index: Int
            if let found = wakes.firstIndex(where: { $0.loop === stream.loop }) {
                index = found
            } else {
                index = wakes.count
                wakes.append((stream.loop, []))
                wakes[index].ids.reserveCapacity(wakeBatch)
            }
            wakes[index].ids.append(stream.connection)
            if wakes[index].ids.count >= wakeBatch {
                stream.loop.streamsNeedAttention(wakes[index].ids)
                wakes[index].ids.removeAll(keepingCapacity: true)
            }
        }
        for (loop, ids) in wakes where !ids.isEmpty { loop.streamsNeedAttention(ids) }
        return refused
    }

    /// Streams per wake-up of a loop during `write(_:to:)`: small enough that
    /// the first sends start within microseconds, large enough that the inbox
    /// lock is taken a few dozen times for ten thousand streams, not thousands.
    static let wakeBatch = 128

    /// Appends under the lock; says whether the stream took the bytes, and
    /// whether its loop must be told (it has not been since it last looked).
    private func enqueue(_ bytes: [UInt8]) -> (accepted: Bool, wake: Bool) {
        state.withLock { state -> (Bool, Bool) in
            if state.closed { return (false, false) }
            if state.pending.count + bytes.count > maxUnsentBytes {
                state.closed = true
                state.reason = .slowConsumer
                state.pending = []
            } else if state.pending.isEmpty {
                // Shares the caller's buffer: a publish to thousands of idle
                // streams copies its event zero times, not once per stream.
                state.pending = bytes
            } else {
                state.pending.append(contentsOf: bytes)
            }
            let wake = !state.wakeQueued
            state.wakeQueued = true
            return (!state.closed, wake)
        }
    }

    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Ends the response once what is queued has been sent.
    public func close() {
        let wake = state.withLock { state -> Bool in
            if state.closed { return false }
            state.closed = true
            state.reason = .finished
            let wake = !state.wakeQueued
            state.wakeQueued = true
            return wake
        }
        if wake { loop.streamNeedsAttention(connection) }
    }

    public var isOpen: Bool { state.withLock { !$0.closed } }
    /// Bytes written that the event loop has not yet taken: more than a
    /// moment's worth means the client's socket is refusing them.
    public var unsentBytes: Int { state.withLock { $0.pending.count } }
    public var closeReason: CloseReason? { state.withLock { $0.reason } }

    /// Runs once when the stream ends for any reason (immediately if it has).
    public func onClose(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.ended { return true }
            state.onClose.append(action)
            return false
        }
        if runNow { action() }
    }

    /// Loop side: takes what is queued, and whether the stream should now end.
    func drain() -> (bytes: [UInt8], closed: Bool) {
        state.withLock { state in
            state.wakeQueued = false
            let bytes = state.pending
            state.pending = []
            return (bytes, state.closed)
        }
    }

    /// Loop side: the connection is gone; closes and runs the callbacks once.
    func ended(_ reason: CloseReason) {
        let callbacks = state.withLock { state -> [@Sendable () -> Void] in
            if !state.closed {
                state.closed = true
                state.reason = reason
            }
            state.wakeQueued = false
            state.ended = true
            let callbacks = state.onClose
            state.onClose = []
            state.pending = []
            return callbacks
        }
        for callback in callbacks { callback() }
    }
}
