import CKithShim
import Glibc
import KithHTTP

/// `kith-bench sse-floor --port P [--threads N]`: the least a server can do
/// for an SSE fan-out, as a reference measured in the same run as Kith.
///
/// N threads (Kith's two event loops by default), each with its own
/// SO_REUSEPORT listener and epoll loop, answer `GET` with event-stream
/// headers and `retry:` and keep the socket. A `POST` wakes every thread, and
/// each sends one event, one `send` per socket, to the streams it holds: no
/// routing, no per-stream queue, no locks, no HTTP parsing beyond the method.
/// What is left is the kernel's work for ten thousand small TCP sends on
/// these cores, with the same client and the same measurement as Kith's row.
/// Kith's figure over this one says how much of the fan-out is Kith's own;
/// the floor says whether an absolute target is reachable on the machine at
/// all (machines of one kind have differed by three times in network cost).
enum SSEFloor {
    /// A body delimited by the connection's end, as Kith sends a stream over
    /// HTTP/1.1, so both send an event in the same bytes.
    static let headers = Array(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n".utf8)
    static let opening = Array("retry: 2000\n\n".utf8)
    static let event = Array("id: 1-1\nevent: invalidate\ndata: {\"topic\":\"styleguide:demo\",\"fragments\":[\"demo\"]}\n\n".utf8)
    static let published = Array("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".utf8)

    static func run(port: Int, threads: Int) -> Int32 {
        var limit: UInt64 = 0
        _ = kith_raise_nofile_limit(&limit)
        var listeners: [Int32] = []
        for _ in 0..<threads {
            var bound: Int32 = 0
            let fd = kith_listen_tcp("127.0.0.1", Int32(port), 4096, 1, &bound)
            guard fd >= 0 else {
                Console.error("sse-floor: cannot listen on port \(port)")
                return 1
            }
            listeners.append(fd)
        }
        let wakes = (0..<threads).map { _ in kith_eventfd() }
        var running: [pthread_t] = []
        for index in 0..<threads {
            let listener = listeners[index], wake = wakes[index]
            running.append(Threads.spawn(name: "floor-\(index)") { loop(listener: listener, wake: wake, everyWake: wakes) })
        }
        Console.out("listening \(port)")
        for thread in running { Threads.join(thread) }
        return 0
    }

    /// One thread's loop. Data tags: the listener, the wake-up, or a socket.
    private static func loop(listener: Int32, wake: Int32, everyWake: [Int32]) {
        let epoll = kith_epoll_create()
        let listenerTag = UInt64.max, wakeTag = UInt64.max - 1
        _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, listener, KITH_EPOLLIN, listenerTag)
        _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, wake, KITH_EPOLLIN, wakeTag)
        // The streams, and each socket's place among them (-1: not a stream).
        var streams: [Int32] = []
        var place = [Int](repeating: -1, count: 1024)
        var events = [UInt64](repeating: 0, count: 512)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = kith_epoll_wait(epoll, &events, 256, -1)
            for i in 0..<Int(max(n, 0)) {
                let tag = events[2 * i]
                if tag == listenerTag {
                    while case let fd = kith_accept(listener), fd >= 0 {
                        _ = kith_set_nodelay(fd)
                        _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_ADD, fd, KITH_EPOLLIN, UInt64(fd))
                    }
                } else if tag == wakeTag {
                    _ = kith_eventfd_drain(wake)
                    event.withUnsafeBytes { bytes in
                        for fd in streams { _ = kith_send(fd, bytes.baseAddress, bytes.count) }
                    }
                } else {
                    let fd = Int32(truncatingIfNeeded: tag)
                    let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if got <= 0 {
                        if got == 0 || errno != EAGAIN {
                            _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_DEL, fd, 0, 0)
                            close(fd)
                            if Int(fd) < place.count, place[Int(fd)] >= 0 {
                                // The last stream fills the gap.
                                let gap = place[Int(fd)], last = streams.removeLast()
                                if last != fd {
                                    streams[gap] = last
                                    place[Int(last)] = gap
                                }
                                place[Int(fd)] = -1
                            }
                        }
                    } else if buffer[0] == UInt8(ascii: "P") {
                        for other in everyWake { _ = kith_eventfd_signal(other) }
                        published.withUnsafeBytes { _ = kith_send(fd, $0.baseAddress, $0.count) }
                        _ = kith_epoll_ctl(epoll, KITH_EPOLL_CTL_DEL, fd, 0, 0)
                        close(fd)
                    } else {
                        if Int(fd) >= place.count { place += repeatElement(-1, count: Int(fd) + 1024 - place.count) }
                        guard place[Int(fd)] < 0 else { continue }
                        let reply = headers + opening
                        reply.withUnsafeBytes { _ = kith_send(fd, $0.baseAddress, $0.count) }
                        place[Int(fd)] = streams.count
                        streams.append(fd)
                    }
                }
            }
        }
    }
}
