import Glibc

/// A value behind a pthread mutex of the adaptive kind, which spins briefly
/// before sleeping. The standard library's `Mutex` uses priority-inheritance
/// futexes on Linux: every contended acquisition is a system call, and under
/// the short, frequent critical sections of a server (handing a response to an
/// event loop, lending a database reader) that costs more than the work.
public final class Lock<Value>: @unchecked Sendable {
    // Every access to `value` happens inside `withLock`, which is what makes
    // this type Sendable; the mutex lives on the heap for a stable address.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

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

    @inline(__always)
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
