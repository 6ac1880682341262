import CKithShim
import Glibc
import KithHTTP

/// `kith-bench sse-clients --port P --streams N [--topics T] [--hold]`: a load
/// client for the SSE fan-out benchmark. It holds N event streams open on one
/// epoll loop, prints `ready N` once they are all open, then, for every stream
/// that receives an `invalidate` event, two CLOCK_MONOTONIC times in
/// nanoseconds (each a space-separated line): `arrivals`, when this client read
/// the event, and `received`, when the kernel queued it on the client's socket
/// (the server's delivery, free of this client's own scheduling delay on a
/// shared machine). Then `failed N`; with `--hold` it keeps the streams open
/// until its standard input closes, so the server's CPU for the publish can be
/// read apart from its CPU for ten thousand disconnections. With `--defer`
/// it reads nothing after `ready` until a line arrives on its standard input:
/// the receive timestamps still say when each event was delivered, and the
/// client takes no CPU from the server meanwhile, as clients on other
/// machines would not. Written natively so the figures measure the server,
/// not a client's per-socket overhead.
enum SSEClients {
    struct Stream {
        var active = false
        var sent = false
        var opened = false
        var arrived: UInt64 = 0
        /// When the kernel queued the bytes that completed the event.
        var received: UInt64 = 0
        /// The last bytes read, so a marker split across reads is still found.
        var tail: [UInt8] = []
    }

    /// Whether `needle` occurs in `tail` followed by `chunk`, without copying
    /// the chunk: the client must cost little per read, or it, not the
    /// server, is what the figures measure.
    static func contains(_ needle: [UInt8], tail: [UInt8], chunk: UnsafeRawBufferPointer) -> Bool {
        if find(needle, in: chunk) { return true }
        if tail.isEmpty { return false }
        let joined = tail + chunk.prefix(needle.count)
        return joined.withUnsafeBytes { find(needle, in: $0) }
    }

    /// memchr for the first byte, memcmp for the rest.
    static func find(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Bool {
        guard let base = haystack.baseAddress, haystack.count >= needle.count, let first = needle.first else { return false }
        return needle.withUnsafeBytes { n in
            var offset = 0
            let last = haystack.count - needle.count
            while offset <= last {
                guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + at, n.baseAddress!, n.count) == 0 { return true }
                offset = at + 1
            }
            return false
        }
    }

    /// Socket receive timestamps come in CLOCK_REALTIME; arrivals are
    /// compared with a CLOCK_MONOTONIC start, so they are shifted by the
    /// clocks' difference, read once (it moves by microseconds a day).
    static func realtimeToMonotonic() -> Int64 {
        var real = timespec(), mono = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        return (Int64(real.tv_sec) - Int64(mono.tv_sec)) * 1_000_000_000 + Int64(real.tv_nsec) - Int64(mono.tv_nsec)
    }

    /// One `recvmsg` into `buffer`; `stamp` gets the SCM_TIMESTAMPNS of the
    /// last segment read, in CLOCK_REALTIME nanoseconds, when there is one.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, control: UnsafeMutableRawBufferPointer, stamp: inout UInt64) -> Int {
        var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        return withUnsafeMutablePointer(to: &vector) { vectorPointer in
            var message = msghdr()
            message.msg_iov = vectorPointer
            message.msg_iovlen = 1
            message.msg_control = control.baseAddress
            message.msg_controllen = control.count
            let got = recvmsg(fd, &message, 0)
            // struct cmsghdr is { size_t len; int level; int type; } and its
            // data starts at the next 8-byte boundary; Swift has no CMSG_ macros.
            var offset = 0
            while got > 0, offset + 16 <= message.msg_controllen {
                let length = control.load(fromByteOffset: offset, as: Int.self)
                let level = control.load(fromByteOffset: offset + 8, as: Int32.self)
                let type = control.load(fromByteOffset: offset + 12, as: Int32.self)
                if level == SOL_SOCKET && type == timestampOption && length >= 32 {
                    let seconds = control.load(fromByteOffset: offset + 16, as: Int.self)
                    let nanos = control.load(fromByteOffset: offset + 24, as: Int.self)
                    stamp = UInt64(seconds) * 1_000_000_000 + UInt64(nanos)
                }
                guard length > 0 else { break }
                offset += (length + 7) & ~7
            }
            return got
        }
    }

    /// SO_TIMESTAMPNS (the "old" 64-bit-time_t form on 64-bit Linux).
    static let timestampOption: Int32 = 35

    static func run(
        port: Int, count: Int, topics: String, hold: Bool = false, deferReading: Bool = false, batch: Int = 500, timeout: Double = 60
    ) -> Int32 {
        var limit: UInt64 = 0
        _ = kith_raise_nofile_limit(&limit)
        let epoll = kith_epoll_create()
        var streams: [Stream] = []
        let openedMarker = Array("retry:".utf8), eventMarker = Array("event: invalidate".utf8)
        let request = Array("GET /live?topics=\(topics) HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".utf8)
        var events = [UInt64](repeating: 0, count: 512)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var control = [UInt8](repeating: 0, count: 128)
        let clockShift = realtimeToMonotonic()
        var opened = 0, arrived = 0, failed = 0, started = 0
        var announced = false
        let deadline = kith_monotonic_nanos() + UInt64(timeout * 1e9)

        func connectOne() {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else {
                failed += 1
                return
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0 || errno == EINPROGRESS else {
                close(fd)
                failed += 1
                return
            }
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, timestampOption, &on, socklen_t(MemoryLayout<Int32>.size))
            if Int(fd) >= streams.count { streams += repeatElement(Stream(), count: Int(fd) + 1 - streams.count + 1024) }
            streams[Int(fd)] = Stream(active: true)
            _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, fd, KITH_EPOLLIN | KITH_EPOLLOUT | KITH_EPOLLET, UInt64(fd))
        }

        while kith_monotonic_nanos() < deadline {
            // Open streams in batches, so the listen backlog is never swamped.
            while started < count && started - opened - failed < batch {
                connectOne()
                started += 1
            }
            if !announced && opened + failed == count {
                announced = true
                Console.out("ready \(opened)")
                // Edge-triggered readiness that arrives meanwhile waits in
                // the epoll set for the reads that follow.
                if deferReading { waitForLine() }
            }
            if announced && arrived + failed >= opened && opened > 0 && arrived > 0 { break }
            let n = kith_epoll_wait(epoll, &events, 256, 100)
            for i in 0..<Int(max(n, 0)) {
                let fd = Int32(truncatingIfNeeded: events[2 * i])
                guard Int(fd) < streams.count, streams[Int(fd)].active else { continue }
                var stream = streams[Int(fd)]
                if !stream.sent {
                    if request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count {
                        stream.sent = true
                    }
                }
                while true {
                    var stamp: UInt64 = 0
                    let got = buffer.withUnsafeMutableBytes { data in
                        control.withUnsafeMutableBytes { receive(fd, into: data, control: $0, stamp: &stamp) }
                    }
                    if got <= 0 {
                        if got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                            if stream.arrived == 0 { failed += 1 }
                            _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_DEL, fd, 0, 0)
                            close(fd)
                            stream.active = false
                        }
                        break
                    }
                    let drained = got < buffer.count
                    buffer.withUnsafeBytes { raw in
                        let chunk = UnsafeRawBufferPointer(rebasing: raw[0..<got])
                        if !stream.opened && contains(openedMarker, tail: stream.tail, chunk: chunk) {
                            stream.opened = true
                            opened += 1
                        }
                        if stream.opened && stream.arrived == 0 && contains(eventMarker, tail: stream.tail, chunk: chunk) {
                            stream.arrived = kith_monotonic_nanos()
                            stream.received = stamp == 0 ? stream.arrived : UInt64(Int64(stamp) - clockShift)
                            arrived += 1
                        }
                        // Only a stream still waiting for a marker needs its tail.
                        if stream.arrived == 0 {
                            stream.tail.removeAll(keepingCapacity: true)
                            stream.tail.append(contentsOf: chunk.suffix(32))
                        }
                    }
                    // A short read emptied the socket: skip the read that would say EAGAIN.
                    if drained { break }
                }
                streams[Int(fd)] = stream
            }
        }
        if !announced { Console.out("ready \(opened)") }
        let delivered = streams.filter { $0.arrived > 0 }
        Console.out("arrivals " + delivered.map { String($0.arrived) }.joined(separator: " "))
        Console.out("received " + delivered.map { String($0.received) }.joined(separator: " "))
        Console.out("failed \(failed)")
        if hold {
            // The streams stay open (and are closed by exit) once the caller
            // has read its figures and closed our standard input.
            var byte: UInt8 = 0
            while read(0, &byte, 1) > 0 {}
        }
        return 0
    }

    /// Blocks until a newline (or the end) on standard input.
    static func waitForLine() {
        var byte: UInt8 = 0
        while read(0, &byte, 1) > 0 && byte != 10 {}
    }
}
