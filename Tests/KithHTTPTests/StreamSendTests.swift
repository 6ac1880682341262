import Glibc
import KithHTTP
import KithTestSupport
import Testing

/// How an event stream's bytes reach the socket: sent at once while the
/// client keeps up, kept back in order while its socket is full.
@Suite("Stream sends")
struct StreamSendTests {
    @Test("a stream whose socket fills keeps what it refused, then sends everything in order once the client reads")
    func fullSocketKeepsOrder() throws {
        let harness = try EngineHarness { $0.maxStreamUnsentBytes = 8 << 20 }
        let client = try harness.client()
        try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = try client.read(until: ": open\n\n", timeout: 5)
        let stream = try #require(harness.streams.withLock { $0.first })

        // Numbered events until the kernel's buffers are full and the stream
        // itself holds bytes back: its socket refused them (EAGAIN).
        let filler = String(repeating: ".", count: 16 * 1024)
        var written = 0
        var backedUp = false
        while written < 4000 && !backedUp {
            #expect(stream.write("data: \(written) \(filler)\n\n"))
            written += 1
            if stream.unsentBytes >= 256 * 1024 {
                // Given the loop a moment to take them, the bytes are still
                // waiting: the socket, not the loop, is behind.
                let deadline = Clock.now + 1
                while stream.unsentBytes > 0 && Clock.now < deadline { usleep(1000) }
                backedUp = stream.unsentBytes > 0
            }
        }
        #expect(backedUp, "the client's socket never filled")

        // The client reads again: every event arrives once, in order.
        let expected = (0..<written).reduce(0) { $0 + "data: \($1) \(filler)\n\n".utf8.count }
        var received: [UInt8] = []
        while received.count < expected, let chunk = try client.readSome(timeout: 10), !chunk.isEmpty {
            received += chunk
        }
        #expect(received.count == expected)
        let numbers = String(decoding: received, as: UTF8.self).split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("data: ") else { return nil }
            return Int(line.dropFirst(6).prefix { $0 != " " })
        }
        #expect(numbers == Array(0..<written))

        // Sending resumes straight away for the next event.
        #expect(stream.write("data: after\n\n"))
        #expect(try client.read(until: "data: after\n\n", timeout: 5).contains("data: after"))
        #expect(stream.isOpen)
    }

    @Test("one write to many streams on one loop reaches every stream, past the batches the loop is told about, and again for the next write")
    func manyStreamsOneWrite() throws {
        // One loop, so its share is every stream: two full wake-up batches
        // and a remainder that only the final wake-up announces.
        let harness = try EngineHarness {
            $0.eventLoops = 1
            $0.maxConnectionsPerAddress = 1024
        }
        let count = 300
        var clients: [TestClient] = []
        for _ in 0..<count {
            let client = try harness.client()
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try client.read(until: ": open\n\n", timeout: 5)
            clients.append(client)
        }
        let streams = harness.streams.withLock { $0 }
        #expect(streams.count == count)

        for word in ["one", "two"] {
            #expect(ResponseStream.write(Array("data: \(word)\n\n".utf8), to: streams).isEmpty)
            var reached = 0
            for client in clients where (try? client.read(until: "data: \(word)\n\n", timeout: 5)) != nil { reached += 1 }
            #expect(reached == count, "every stream hears \(word)")
        }
    }
}
