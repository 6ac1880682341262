import Foundation

/// An OS thread, like the server's workers, that the test can join.
public final class TestThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    public init(_ body: @escaping @Sendable () -> Void) {
        let finished = finished
        let thread = Thread {
            body()
            finished.signal()
        }
        thread.start()
    }

    public func join() {
        finished.wait()
    }

    /// False if the thread is still running after `seconds`.
    public func join(timeout seconds: Double) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
    }
}
