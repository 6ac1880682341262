import Synchronization

/// Threads a feature runs beside the server (a scheduler, a sweeper):
/// started with the server and stopped before the database closes. Features
/// register theirs once, while the app is built.
public final class BackgroundTasks: Sendable {
    public typealias Action = @Sendable () -> Void

    private let tasks = Mutex<[(name: String, start: Action, stop: Action)]>([])

    public init() {}

    public func register(_ name: String, start: @escaping Action, stop: @escaping Action) {
        tasks.withLock { tasks in
            precondition(!tasks.contains { $0.name == name }, "background task registered twice: \(name)")
            tasks.append((name, start, stop))
        }
    }

    func startAll() {
        for task in tasks.withLock({ $0 }) { task.start() }
    }

    /// In reverse order of starting.
    func stopAll() {
        for task in tasks.withLock({ $0 }).reversed() { task.stop() }
    }
}
