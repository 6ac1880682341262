import Testing

@testable import KithHTTP

@Suite("Range header")
struct ByteRangeTests {
    @Test("Absent header serves the whole representation")
    func absent() {
        #expect(ByteRange(header: nil, length: 1000) == .full)
        #expect(ByteRange.full.status == .ok)
        #expect(ByteRange.full.contentRange(length: 1000) == nil)
    }

    @Test("First and last positions are inclusive")
    func closedRange() {
        let range = ByteRange(header: "bytes=0-99", length: 1000)
        #expect(range == .partial(0...99))
        #expect(range.status == .partialContent)
        #expect(range.contentRange(length: 1000) == "bytes 0-99/1000")
        #expect(ByteRange(header: "bytes=0-0", length: 1000) == .partial(0...0))
        #expect(ByteRange(header: "bytes=999-999", length: 1000) == .partial(999...999))
    }

    @Test("An open range runs to the end")
    func openRange() {
        #expect(ByteRange(header: "bytes=100-", length: 1000) == .partial(100...999))
        #expect(ByteRange(header: "bytes=0-", length: 1) == .partial(0...0))
    }

    @Test("A suffix range takes the last bytes, all of them if it is longer")
    func suffix() {
        #expect(ByteRange(header: "bytes=-500", length: 1000) == .partial(500...999))
        #expect(ByteRange(header: "bytes=-5000", length: 1000) == .partial(0...999))
        #expect(ByteRange(header: "bytes=-1", length: 1000) == .partial(999...999))
    }

    @Test("An end beyond the length is clamped")
    func clampedEnd() {
        #expect(ByteRange(header: "bytes=10-5000", length: 1000) == .partial(10...999))
        #expect(ByteRange(header: "bytes=0-99999999999999999999999", length: 1000) == .partial(0...999))
        #expect(ByteRange(header: "bytes=-99999999999999999999999", length: 1000) == .partial(0...999))
    }

    @Test("A start at or beyond the length is unsatisfiable")
    func startBeyondLength() {
        let range = ByteRange(header: "bytes=1000-", length: 1000)
        #expect(range == .unsatisfiable)
        #expect(range.status == .rangeNotSatisfiable)
        #expect(range.contentRange(length: 1000) == "bytes */1000")
        #expect(ByteRange(header: "bytes=5000-6000", length: 1000) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=99999999999999999999-", length: 1000) == .unsatisfiable)
    }

    @Test("An empty suffix range is unsatisfiable")
    func emptySuffix() {
        #expect(ByteRange(header: "bytes=-0", length: 1000) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=-000", length: 0) == .unsatisfiable)
    }

    @Test("Syntactically invalid headers are ignored")
    func garbage() {
        let invalid = [
            "", "bytes", "bytes=", "bytes=abc", "bytes=5-1", "bytes=-", "bytes=--1", "bytes=1-2-3",
            "bytes=1", "bytes=0x1-2", "bytes=+1-2", "bytes 0-1", "items=0-1", "byte=0-1", "bytes=0-1;x",
            "bytes=1 -2", "bytes=,", "bytes=0-1,x",
        ]
        for header in invalid {
            #expect(ByteRange(header: header, length: 1000) == .full, "\(header)")
        }
    }

    @Test("Several ranges are served as the whole representation")
    func multipleRanges() {
        #expect(ByteRange(header: "bytes=0-1,5-6", length: 1000) == .full)
        #expect(ByteRange(header: "bytes=0-1, -5", length: 1000) == .full)
        #expect(ByteRange(header: "bytes=5000-,6000-", length: 1000) == .full)
    }

    @Test("The unit is case-insensitive and empty list elements are tolerated")
    func leniency() {
        #expect(ByteRange(header: "BYTES=0-1", length: 1000) == .partial(0...1))
        #expect(ByteRange(header: "bytes=0-1,", length: 1000) == .partial(0...1))
        #expect(ByteRange(header: "bytes=, 2-3 ,", length: 1000) == .partial(2...3))
    }

    @Test("Against an empty representation only suffix ranges are not errors")
    func zeroLength() {
        #expect(ByteRange(header: "bytes=0-", length: 0) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-0", length: 0) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=-1", length: 0) == .full)
        #expect(ByteRange(header: "bytes=-0", length: 0) == .unsatisfiable)
        #expect(ByteRange.unsatisfiable.contentRange(length: 0) == "bytes */0")
        #expect(ByteRange(header: nil, length: 0) == .full)
    }
}
