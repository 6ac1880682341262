import Glibc

/// Plain pthreads. Kith's blocking work (SQLite, password hashing, file I/O)
/// runs on threads it owns, never on Swift's cooperative pool, which has only
/// one thread per core.
public enum Threads {
    private final class Start {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts a joinable thread running `body`.
    @discardableResult
    public static func spawn(name _: String, _ body: @escaping @Sendable () -> Void) -> pthread_t {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Start(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            start.body()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        return thread
    }

    public static func join(_ thread: pthread_t) {
        pthread_join(thread, nil)
    }
}

/// A mutex with a condition variable, for the few places that must block a
/// thread until something happens (the worker queue, latches in tests).
public final class Monitor: @unchecked Sendable {
    // The pthread objects need stable addresses, so they live on the heap;
    // every access goes through `withLock`, which is what makes this Sendable.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits inside `withLock` until signalled; callers re-check their condition.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits at most `seconds`; returns false on timeout.
    public func wait(seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = Double(deadline.tv_sec) + Double(deadline.tv_nsec) / 1e9 + seconds
        deadline.tv_sec = Int(total)
        deadline.tv_nsec = Int((total - Double(Int(total))) * 1e9)
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}
