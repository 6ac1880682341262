import Glibc

/// A program run to its end with its output read, for work that must not
/// share the server's address space (decoders of untrusted files). Blocks
/// the calling thread: run it from a worker or a background thread, never
/// from an event loop.
enum ChildProcess {
    enum Ending: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// Killed by us when `timeLimit` passed.
        case timedOut

        var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            case .timedOut: "killed after its time limit"
            }
        }
    }

    struct Result {
        var ending: Ending
        var output: [UInt8]
        var errors: [UInt8]
        var outputText: String { String(decoding: output, as: UTF8.self) }
        var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    struct SpawnFailure: Error, CustomStringConvertible {
        let what: String
        let code: Int32
        var description: String { "\(what): \(String(cString: strerror(code)))" }
    }

    /// Runs `executable` with `arguments`, standard input from /dev/null,
    /// and kills it once `timeLimit` seconds have passed. Output beyond
    /// `outputLimit` bytes per stream is read and dropped.
    static func run(_ executable: String, _ arguments: [String], timeLimit: Double, outputLimit: Int = 64 * 1024) throws -> Result {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw SpawnFailure(what: "pipe", code: errno) }
        guard pipe(&errPipe) == 0 else {
            let code = errno
            close(outPipe[0]); close(outPipe[1])
            throw SpawnFailure(what: "pipe", code: code)
        }
        // Glibc's module has no pipe2: close-on-exec straight after, so
        // another child started meanwhile keeps none of these open.
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(outPipe[0]); close(errPipe[0]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)

        // The server blocks its shutdown signals for a signalfd and ignores
        // SIGPIPE; a child inherits both unless told otherwise.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = (argv + [nil]).withUnsafeBufferPointer { args in
            posix_spawn(&pid, executable, &actions, &attributes, args.baseAddress!, environ)
        }
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else { throw SpawnFailure(what: "spawn \(executable)", code: spawned) }

        var output: [UInt8] = []
        var errors: [UInt8] = []
        var open = [outPipe[0], errPipe[0]]
        let deadline = Self.now() + timeLimit
        var timedOut = false
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while !open.isEmpty {
            let remaining = deadline - Self.now()
            if remaining <= 0 {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 60) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            for entry in fds where entry.revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if count <= 0 {
                    open.removeAll { $0 == entry.fd }
                    continue
                }
                if entry.fd == outPipe[0] {
                    output.append(contentsOf: chunk[..<min(count, max(0, outputLimit - output.count))])
                } else {
                    errors.append(contentsOf: chunk[..<min(count, max(0, outputLimit - errors.count))])
                }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let ending: Ending
        if timedOut {
            ending = .timedOut
        } else if status & 0x7f == 0 {
            ending = .exited((status >> 8) & 0xff)
        } else {
            ending = .signalled(status & 0x7f)
        }
        return Result(ending: ending, output: output, errors: errors)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
