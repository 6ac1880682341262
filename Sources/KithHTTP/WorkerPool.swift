import Glibc

/// A fixed set of threads running handlers, fed by a bounded queue. A slow
/// handler occupies one worker; the I/O threads and the other workers go on.
/// When the queue is full the server answers 503 instead of queueing forever.
final class WorkerPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    // Guarded by `monitor`.
    private var jobs: [Job?] = []
    private var head = 0
    private var stopping = false
    private var threads: [pthread_t] = []

    private let monitor = Monitor()
    private let capacity: Int

    init(threads count: Int, queueCapacity: Int) {
        capacity = queueCapacity
        for index in 0..<count {
            threads.append(Threads.spawn(name: "kith-worker-\(index)") { [self] in run() })
        }
    }

    /// False when the queue is full or the pool is stopping.
    func submit(_ job: @escaping Job) -> Bool {
        monitor.withLock {
            guard !stopping, jobs.count - head < capacity else { return false }
            jobs.append(job)
            monitor.signal()
            return true
        }
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
            while head == jobs.count {
                if stopping { return nil }
                monitor.wait()
            }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            // Compact once the consumed prefix dominates, so the array does not grow forever.
            if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }
}
