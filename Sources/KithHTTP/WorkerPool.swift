import Glibc

/// Up to a fixed number of threads running handlers, fed by a bounded queue.
/// A slow handler occupies one worker; the I/O threads and the other workers
/// go on. When the queue is full the server answers 503 instead of queueing
/// forever.
///
/// Threads start when work first needs them, not up front: every thread
/// costs resident memory (its stack, and a malloc arena once it allocates),
/// and a quiet server needs one or two. A thread is started whenever the
/// queue holds more jobs than there are idle threads to take them; once
/// started, a thread stays until shutdown.
final class WorkerPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    // Guarded by `monitor`. The queue is a ring that doubles when full, up to
    // `capacity`: once grown, queueing and taking a job allocate nothing.
    private var ring: [Job?] = Array(repeating: nil, count: 16)
    private var head = 0
    private var queued = 0
    private var stopping = false
    private var threads: [pthread_t] = []
    /// Threads waiting in `next` for a job.
    private var idle = 0

    private let monitor = Monitor()
    private let capacity: Int
    private let maxThreads: Int

    init(threads count: Int, queueCapacity: Int) {
        capacity = max(1, queueCapacity)
        maxThreads = max(1, count)
    }

    /// Threads started so far.
    var threadCount: Int { monitor.withLock { threads.count } }

    /// False when the queue is full or the pool is stopping.
    func submit(_ job: @escaping Job) -> Bool {
        monitor.withLock {
            guard !stopping, queued < capacity else { return false }
            if queued == ring.count { grow() }
            ring[(head + queued) % ring.count] = job
            queued += 1
            if queued > idle && threads.count < maxThreads {
                threads.append(Threads.spawn(name: "kith-worker-\(threads.count)") { [self] in run() })
            }
            // Only a waiting thread needs waking; signalling none costs nothing.
            if idle > 0 { monitor.signal() }
            return true
        }
    }

    /// Doubles the ring (within `capacity`), oldest job first.
    private func grow() {
        let size = min(capacity, ring.count * 2)
        var grown: [Job?] = []
        grown.reserveCapacity(size)
        for offset in 0..<queued { grown.append(ring[(head + offset) % ring.count]) }
        grown.append(contentsOf: repeatElement(nil, count: size - queued))
        ring = grown
        head = 0
    }

    /// Runs what is queued, then joins every worker.
    func shutdown() {
        let toJoin = monitor.withLock {
            stopping = true
            monitor.broadcast()
            return threads
        }
        for thread in toJoin { Threads.join(thread) }
    }

    private func run() {
        while let job = next() { job() }
    }

    private func next() -> Job? {
        monitor.withLock {
            while queued == 0 {
                if stopping { return nil }
                idle += 1
                monitor.wait()
                idle -= 1
            }
            let job = ring[head].take()
            head = (head + 1) % ring.count
            queued -= 1
            return job
        }
    }
}
