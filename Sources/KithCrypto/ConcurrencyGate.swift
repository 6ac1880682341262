import Glibc

/// A counting semaphore: at most `capacity` callers run inside `withPermit`
/// at once; the rest sleep in line. Password hashing uses it so that a burst of
/// sign-ins queues instead of allocating a hash's memory once per request.
///
/// It blocks the calling thread. Call it from the server's worker threads,
/// never from Swift's cooperative pool, whose few threads must not sleep.
final class ConcurrencyGate: @unchecked Sendable {
    // Sendable is sound: `inUse` and `peakInUse` are read and written only with
    // `mutex` held, and the pthread objects live on the heap at fixed addresses
    // (pthread objects must not move) for the life of the gate.
    let capacity: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let permitReleased = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var inUse = 0
    private var highWater = 0

    init(capacity: Int) {
        precondition(capacity >= 1, "ConcurrencyGate: capacity must be at least 1")
        self.capacity = capacity
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(permitReleased, nil)
    }

    deinit {
        pthread_cond_destroy(permitReleased)
        pthread_mutex_destroy(mutex)
        permitReleased.deallocate()
        mutex.deallocate()
    }

    func withPermit<T>(_ body: () throws -> T) rethrows -> T {
        acquire()
        defer { release() }
        return try body()
    }

    /// The most permits ever held at once: a figure for tests and diagnostics.
    var peakInUse: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return highWater
    }

    private func acquire() {
        pthread_mutex_lock(mutex)
        // A loop, not an `if`: condition variables may wake spuriously, and
        // another thread may take the freed permit first.
        while inUse >= capacity {
            pthread_cond_wait(permitReleased, mutex)
        }
        inUse += 1
        highWater = max(highWater, inUse)
        pthread_mutex_unlock(mutex)
    }

    private func release() {
        pthread_mutex_lock(mutex)
        inUse -= 1
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(permitReleased)
    }
}

/// The number of CPUs online. (It ignores CPU-affinity masks and container
/// quotas, which Glibc's Swift overlay gives no portable way to read; a host
/// that narrows them can pass the gate size explicitly.)
func onlineProcessorCount() -> Int {
    max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
}
