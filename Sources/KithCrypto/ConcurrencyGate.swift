import Glibc

/// A counting semaphore with a bounded line: at most `capacity` callers run
/// inside `withPermit` at once, at most `maxWaiting` more sleep in line, and
/// anyone past that is turned away at once. Password hashing uses it so that
/// a burst of sign-ins queues instead of allocating a hash's memory once per
/// request — and so that a flood cannot park every worker thread in the line.
///
/// It blocks the calling thread. Call it from the server's worker threads,
/// never from Swift's cooperative pool, whose few threads must not sleep.
final class ConcurrencyGate: @unchecked Sendable {
    // Sendable is sound: the counters are read and written only with `mutex`
    // held, and the pthread objects live on the heap at fixed addresses
    // (pthread objects must not move) for the life of the gate.
    let capacity: Int
    let maxWaiting: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let permitReleased = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var inUse = 0
    private var highWater = 0
    private var waiting = 0
    private var granted = 0

    init(capacity: Int, maxWaiting: Int) {
        precondition(capacity >= 1, "ConcurrencyGate: capacity must be at least 1")
        precondition(maxWaiting >= 0, "ConcurrencyGate: maxWaiting cannot be negative")
        self.capacity = capacity
        self.maxWaiting = maxWaiting
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(permitReleased, nil)
    }

    deinit {
        pthread_cond_destroy(permitReleased)
        pthread_mutex_destroy(mutex)
        permitReleased.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with a permit, waiting for one if need be; nil, without
    /// running it or waiting, when the line is already `maxWaiting` long.
    func withPermit<T>(_ body: () throws -> T) rethrows -> T? {
        guard acquire() else { return nil }
        defer { release() }
        return try body()
    }

    /// The most permits ever held at once: a figure for tests and diagnostics.
    var peakInUse: Int { locked { highWater } }

    /// Callers sleeping in line right now.
    var waitingNow: Int { locked { waiting } }

    /// Permits handed out since the gate was made.
    var permitsGranted: Int { locked { granted } }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    private func acquire() -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if inUse >= capacity {
            guard waiting < maxWaiting else { return false }
            waiting += 1
            // A loop, not an `if`: condition variables may wake spuriously, and
            // another thread may take the freed permit first.
            while inUse >= capacity {
                pthread_cond_wait(permitReleased, mutex)
            }
            waiting -= 1
        }
        inUse += 1
        granted += 1
        highWater = max(highWater, inUse)
        return true
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
