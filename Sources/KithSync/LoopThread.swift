import Glibc

/// Marks the threads that must never wait: the engine's event loops, each
/// serving thousands of connections. A handler may run on one (a route the
/// app declared `runsInline`) only if it does bounded work; code that can
/// wait on another thread for long, such as a database write queuing for the
/// writer, checks `isCurrent` and stops the program rather than stall every
/// connection of the loop.
public enum LoopThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
        return key
    }()

    /// Called once by each event loop's thread before it serves anything.
    public static func markCurrent() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    public static var isCurrent: Bool { pthread_getspecific(key) != nil }
}
