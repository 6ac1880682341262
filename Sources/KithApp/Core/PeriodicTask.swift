import CKithShim
import Glibc
import KithHTTP
import Synchronization

/// Work repeated every `interval` seconds on a thread of its own, such as a
/// sweep or a scheduler's tick. A plain pthread sleeping on a `Monitor`:
/// the work does blocking SQLite writes, which must stay off Swift's
/// cooperative pool. The first run is at start, so whatever fell due while
/// the server was down is done at once.
public final class PeriodicTask: Sendable {
    private struct State {
        var thread: pthread_t?
        var stopping = false
        /// Set by `wake`: run again as soon as the current run ends.
        var woken = false
        /// Runs finished, for `waitForFirstRun`.
        var runs = 0
    }

    /// Names the thread, and the background task built from it.
    public let name: String
    public let interval: Double
    private let work: @Sendable () -> Void
    private let monitor = Monitor()
    private let state = Mutex(State())

    public init(_ name: String, every interval: Double, _ work: @escaping @Sendable () -> Void) {
        self.name = name
        self.interval = interval
        self.work = work
    }

    /// Started with the server and stopped before the database closes.
    public var backgroundTask: BackgroundTask {
        BackgroundTask(name, start: { self.start() }, stop: { self.stop() }, settle: { self.waitForFirstRun(until: $0) })
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// Starts the thread; a second call, or one after `stop`, does nothing.
    public func start() {
        state.withLock { state in
            guard state.thread == nil, !state.stopping else { return }
            state.thread = Threads.spawn(name: name) { [self] in
                while !isStopping {
                    work()
                    let stopping = monitor.withLock { () -> Bool in
                        self.state.withLock { $0.runs += 1 }
                        // For `waitForFirstRun`; this thread is not waiting yet.
                        monitor.broadcast()
                        // Checked under the monitor's lock, which `stop`
                        // takes to broadcast: the wake-up cannot be missed.
                        if isStopping { return true }
                        if !takeWake() {
                            _ = monitor.wait(seconds: interval)
                            _ = takeWake()
                        }
                        return isStopping
                    }
                    if stopping { return }
                }
            }
        }
    }

    /// Waits until the run made at start has finished, or `seconds` have
    /// passed; true when it finished (or the task never started). For the
    /// end of start-up, so what start-up touched is handed back after all of it.
    public func waitForFirstRun(seconds: Double) -> Bool {
        waitForFirstRun(until: Self.deadline(afterSeconds: seconds))
    }

    /// The same, until an instant of `kith_monotonic_nanos`.
    public func waitForFirstRun(until deadline: UInt64) -> Bool {
        monitor.withLock {
            while state.withLock({ $0.runs == 0 && $0.thread != nil && !$0.stopping }) {
                let now = kith_monotonic_nanos()
                guard now < deadline else { return false }
                _ = monitor.wait(seconds: Double(deadline - now) / 1e9)
            }
            return true
        }
    }

    /// `seconds` from now on the monotonic clock, as the waits above take it.
    public static func deadline(afterSeconds seconds: Double) -> UInt64 {
        kith_monotonic_nanos() &+ UInt64(max(0, seconds) * 1e9)
    }

    /// Runs the work again now rather than at the next interval (new work
    /// has arrived); a wake during a run makes one more run after it.
    public func wake() {
        monitor.withLock {
            state.withLock { $0.woken = true }
            monitor.broadcast()
        }
    }

    private func takeWake() -> Bool {
        state.withLock { state in
            defer { state.woken = false }
            return state.woken
        }
    }

    /// Wakes the thread and waits for it to finish its current run.
    public func stop() {
        let thread = state.withLock { state -> pthread_t? in
            state.stopping = true
            defer { state.thread = nil }
            return state.thread
        }
        monitor.withLock { monitor.broadcast() }
        if let thread { Threads.join(thread) }
    }
}
