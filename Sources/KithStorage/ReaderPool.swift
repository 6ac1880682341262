import Dispatch
import KithSync

/// The read-only connections, lent to one thread at a time. A caller blocks
/// while all of them are out.
///
/// The semaphore counts idle connections, so waiting costs no spinning; the
/// mutex guards which ones are idle. Once closed, a woken waiter passes its
/// wake-up on before failing, so every waiter eventually learns of the close.
final class ReaderPool: Sendable {
    private struct State {
        var idle: [Connection]
        var isClosed = false
        /// Threads holding a reader: a second read on the same thread is a
        /// mistake (it sees another snapshot, and with every reader out it
        /// would wait for itself forever).
        var borrowers: Set<UInt> = []
    }

    private let state: Lock<State>
    private let available: DispatchSemaphore
    let capacity: Int

    init(connections: [Connection]) {
        capacity = connections.count
        state = Lock(State(idle: connections))
        available = DispatchSemaphore(value: connections.count)
    }

    /// Whether `thread` is inside `withConnection`.
    func isBorrowed(by thread: UInt) -> Bool {
        state.withLock { $0.borrowers.contains(thread) }
    }

    /// Runs `body` with a connection lent to the calling thread.
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let thread = ThreadIdentity.current
        precondition(!isBorrowed(by: thread), "Database.read (or backup) called inside a Database.read on the same thread")

        available.wait()
        let connection = state.withLock { state -> Connection? in
            guard !state.isClosed else { return nil }
            state.borrowers.insert(thread)
            return state.idle.removeLast()
        }
        guard let connection else {
            available.signal()
            throw DatabaseError.closed
        }
        connection.lend(to: thread)
        defer {
            connection.reclaim()
            state.withLock {
                $0.borrowers.remove(thread)
                $0.idle.append(connection)
            }
            available.signal()
        }
        return try body(connection)
    }

    /// Waits for every reader to come back, then closes them all. Idempotent.
    func close() {
        let wasClosed = state.withLock { state in
            defer { state.isClosed = true }
            return state.isClosed
        }
        guard !wasClosed else { return }
        // Holding every permit means every connection is idle.
        for _ in 0..<capacity {
            available.wait()
        }
        let connections = state.withLock { state in
            defer { state.idle = [] }
            return state.idle
        }
        for connection in connections {
            connection.close()
        }
        // Give the permits back so that blocked and future callers wake up, see
        // the pool closed, and fail instead of waiting forever.
        for _ in 0..<capacity {
            available.signal()
        }
    }
}
