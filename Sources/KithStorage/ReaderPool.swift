import Dispatch
import KithSync

/// The read-only connections, lent to one thread at a time. A caller blocks
/// while all of them are out.
///
/// Connections are opened when first needed, up to `capacity`: each costs
/// memory (its lookaside buffer, its copy of the parsed schema, its page
/// cache), and a quiet server rarely has more than one read at a time. Once
/// opened, a connection stays open until the pool closes.
///
/// The semaphore counts permits (idle connections plus ones not yet opened),
/// so waiting costs no spinning; the mutex guards which ones are idle. Once
/// closed, a woken waiter passes its wake-up on before failing, so every
/// waiter eventually learns of the close.
final class ReaderPool: Sendable {
    typealias Opener = @Sendable () throws(DatabaseError) -> Connection

    private struct State {
        var idle: [Connection]
        /// Connections opened so far, idle or lent; at most `capacity`.
        var opened: Int
        var isClosed = false
        /// Threads holding a reader: a second read on the same thread is a
        /// mistake (it sees another snapshot, and with every reader out it
        /// would wait for itself forever). An array: it holds at most
        /// `capacity` threads, and a linear scan of those costs less than
        /// hashing on every read.
        var borrowers: [UInt] = []

        mutating func removeBorrower(_ thread: UInt) {
            guard let index = borrowers.firstIndex(of: thread) else { return }
            borrowers.swapAt(index, borrowers.count - 1)
            borrowers.removeLast()
        }
    }

    private let state: Lock<State>
    private let available: DispatchSemaphore
    private let open: Opener
    let capacity: Int

    /// `first` is opened already (so a database that cannot be read fails at
    /// once); `open` makes the others on demand.
    init(capacity: Int, first: Connection, open: @escaping Opener) {
        precondition(capacity >= 1)
        self.capacity = capacity
        self.open = open
        state = Lock(State(idle: [first], opened: 1))
        available = DispatchSemaphore(value: capacity)
    }

    /// How many connections have been opened (for tests and figures).
    var openedCount: Int { state.withLock { $0.opened } }

    /// Whether `thread` is inside `withConnection`.
    func isBorrowed(by thread: UInt) -> Bool {
        state.withLock { $0.borrowers.contains(thread) }
    }

    private enum Lent {
        case idle(Connection)
        case toOpen
        case closed
    }

    /// Runs `body` with a connection lent to the calling thread.
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let thread = ThreadIdentity.current
        precondition(!isBorrowed(by: thread), "Database.read (or backup) called inside a Database.read on the same thread")

        available.wait()
        let lent = state.withLock { state -> Lent in
            guard !state.isClosed else { return .closed }
            state.borrowers.append(thread)
            if let connection = state.idle.popLast() { return .idle(connection) }
            // Holding a permit with none idle means one is still unopened.
            state.opened += 1
            return .toOpen
        }
        let connection: Connection
        switch lent {
        case .closed:
            available.signal()
            throw DatabaseError.closed
        case .idle(let idle):
            connection = idle
        case .toOpen:
            do {
                connection = try open()
            } catch {
                state.withLock {
                    $0.opened -= 1
                    $0.removeBorrower(thread)
                }
                available.signal()
                throw error
            }
        }
        connection.lend(to: thread)
        defer {
            connection.reclaim()
            state.withLock {
                $0.removeBorrower(thread)
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
        // Holding every permit means every opened connection is idle.
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
