import CKithShim
import Glibc
import KithHTTP

/// `kith-bench sse-clients --port P --streams N [--topics T]`: a load client
/// for the SSE fan-out benchmark. It holds N event streams open on one epoll
/// loop, prints `ready N` once they are all open, then, for every stream that
/// receives an `invalidate` event, the CLOCK_MONOTONIC time of its arrival in
/// nanoseconds (one line, space-separated), and exits. Written natively so the
/// figures measure the server, not a client's per-socket overhead.
enum SSEClients {
    struct Stream {
        var active = false
        var sent = false
        var opened = false
        var arrived: UInt64 = 0
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

    static func run(port: Int, count: Int, topics: String, batch: Int = 500, timeout: Double = 60) -> Int32 {
        var limit: UInt64 = 0
        _ = kith_raise_nofile_limit(&limit)
        let epoll = kith_epoll_create()
        var streams: [Stream] = []
        let openedMarker = Array("retry:".utf8), eventMarker = Array("event: invalidate".utf8)
        let request = Array("GET /live?topics=\(topics) HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".utf8)
        var events = [UInt64](repeating: 0, count: 512)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
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
                    let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
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
                            arrived += 1
                        }
                        stream.tail = Array(chunk.suffix(32))
                    }
                    // A short read emptied the socket: skip the read that would say EAGAIN.
                    if drained { break }
                }
                streams[Int(fd)] = stream
            }
        }
        if !announced { Console.out("ready \(opened)") }
        Console.out("arrivals " + streams.filter { $0.arrived > 0 }.map { String($0.arrived) }.joined(separator: " "))
        Console.out("failed \(failed)")
        return 0
    }
}
