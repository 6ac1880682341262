import Synchronization

/// Threads a feature runs beside the server (a scheduler, a sweeper):
/// started with the server and stopped before the database closes. Features
/// register theirs once, while the app is built.
public final class BackgroundTasks: Sendable {
    public typealias Action = @Sendable () -> Void
    /// Waits until the awaited work is done or the given instant
    /// (`kith_monotonic_nanos`) passes; true when it is done.
    public typealias Settle = @Sendable (_ deadline: UInt64) -> Bool

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

    /// Waits, until `deadline` at most, for each task's work at start; true
    /// when all of it is done.
    func settleAll(until deadline: UInt64) -> Bool {
        var settled = true
        for task in tasks.withLock({ $0 }) {
            if let settle = task.settle { settled = settle(deadline) && settled }
        }
        return settled
    }

    /// In reverse order of starting.
    func stopAll() {
        for task in tasks.withLock({ $0 }).reversed() { task.stop() }
    }
}
