import Glibc
import KithHTTP
import Synchronization

/// The thread that runs the digest sweep every few seconds. A plain pthread
/// sleeping on a `Monitor`: each sweep does blocking SQLite writes, which
/// must stay off Swift's cooperative pool. The first sweep runs at start, so
/// digests that fell due while the server was down go out at once.
final class DigestSweeper: Sendable {
    private struct State {
        var thread: pthread_t?
        var stopping = false
    }

    let interval: Double
    let name: String
    private let monitor = Monitor()
    private let state = Mutex(State())

    /// `name` names the thread; other periodic jobs (tally resets) reuse this loop.
    init(interval: Double, name: String = "kith-digests") {
        self.interval = interval
        self.name = name
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// Starts the thread; a second call does nothing.
    func start(_ sweep: @escaping @Sendable () -> Void) {
        state.withLock { state in
            guard state.thread == nil, !state.stopping else { return }
            state.thread = Threads.spawn(name: name) { [self] in
                while !isStopping {
                    sweep()
                    let stopping = monitor.withLock { () -> Bool in
                        // Checked under the monitor's lock, which `stop`
                        // takes to broadcast: the wake-up cannot be missed.
                        if isStopping { return true }
                        _ = monitor.wait(seconds: interval)
                        return isStopping
                    }
                    if stopping { return }
                }
            }
        }
    }

    /// Wakes the thread and waits for it to finish its current sweep.
    func stop() {
        let thread = state.withLock { state -> pthread_t? in
            state.stopping = true
            defer { state.thread = nil }
            return state.thread
        }
        monitor.withLock { monitor.broadcast() }
        if let thread { Threads.join(thread) }
    }
}
