import Glibc

/// A value behind a pthread mutex of the adaptive kind, which spins briefly
/// before sleeping. The standard library's `Mutex` uses priority-inheritance
/// futexes on Linux: every contended acquisition is a system call, and under
/// the short, frequent critical sections of a server (handing a response to an
/// event loop, lending a database reader) that costs more than the work.
public final class Lock<Value>: @unchecked Sendable {
    // Every access to `value` happens inside `withLock`, which is what makes
    // this type Sendable; the mutex lives on the heap for a stable address.
    // Both are visible to inlined `withLock` bodies only.
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// The mutex already makes access exclusive; Swift's run-time check of a
    /// class property's exclusivity cost more than taking the lock.
    @usableFromInline @exclusivity(unchecked) var value: Value

    public init(_ value: Value) {
        self.value = value
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Inlinable so that each caller gets it specialized for its value and
    /// result: the generic version is what every lock in a request paid for.
    @inlinable @inline(__always)
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
