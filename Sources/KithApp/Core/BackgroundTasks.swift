import CKithShim
import Synchronization

/// Threads a feature runs beside the server (a scheduler, a sweeper):
/// started with the server and stopped before the database closes. Features
/// register theirs once, while the app is built.
public final class BackgroundTasks: Sendable {
    public typealias Action = @Sendable () -> Void
    /// Waits at most the given seconds; true when the awaited work is done.
    public typealias Settle = @Sendable (Double) -> Bool

    private let tasks = Mutex<[BackgroundTask]>([])

    public init() {}

    public func register(_ task: BackgroundTask) {
        tasks.withLock { tasks in
            precondition(!tasks.contains { $0.name == task.name }, "background task registered twice: \(task.name)")
            tasks.append(task)
        }
    }

    func startAll() {
        for task in tasks.withLock({ $0 }) { task.start() }
    }

    /// Waits, within `seconds` in all, for each task's work at start; true
    /// when all of it is done.
    func settleAll(seconds: Double) -> Bool {
        let deadline = kith_monotonic_nanos() &+ UInt64(max(0, seconds) * 1e9)
        var settled = true
        for task in tasks.withLock({ $0 }) {
            guard let settle = task.settle else { continue }
            let now = kith_monotonic_nanos()
            settled = settle(now < deadline ? Double(deadline - now) / 1e9 : 0) && settled
        }
        return settled
    }

    /// In reverse order of starting.
    func stopAll() {
        for task in tasks.withLock({ $0 }).reversed() { task.stop() }
    }
}
