import KithTestSupport
import Foundation
@testable import KithMedia
import Testing

@Suite("WebM location tags")
struct MatroskaLocationPatcherTests {
    @Test("a WebM's LOCATION and nested GPS tags, its attachments and the Tags CRC-32 become Void elements; every other byte unchanged")
    func webm() throws {
        let (original, locations) = Fixture.webmWithLocation()
        let (path, cleanup) = try temporaryFile(original)
        defer { cleanup() }

        let report = try MetadataStripper.strip(fileAt: path, type: .webmVideo)
        let stripped = try read(path)

        #expect(report.method == .patchedInPlace && report.removedLocation)
        #expect(report.removed.count == 4, "\(report)")
        #expect(stripped.count == original.count)
        for needle in ["LOCATION", Fixture.webmLocation, "gps_latitude", "48.8577", "cover.jpg", "Paris"] {
            #expect(!stripped.contains(needle), "still holds \(needle)")
        }
        #expect(stripped.contains("TITLE") && stripped.contains("Party") && stripped.contains("ARTIST") && stripped.contains("Ann"),
                "other tags stay")
        for index in original.indices where original[index] != stripped[index] {
            #expect(locations.contains { $0.contains(index) }, "byte \(index) changed outside a voided element")
        }
        for range in locations {
            let void = try #require(EBMLElement.read(stripped, at: range.lowerBound))
            #expect(void.id == 0xEC && void.end == range.upperBound, "a Void exactly where \(range) was")
            #expect(stripped[void.payload..<void.end].allSatisfy { $0 == 0 })
        }
        let segment = try #require(EBMLElement.read(stripped, at: 36))
        #expect(try EBMLElement.children(stripped, of: segment).map(\.id) == [0x1549_A966, 0x1654_AE6B, 0x1254_C367, 0x1F43_B675, 0xEC])
        #expect(try MetadataStripper.strip(fileAt: path, type: .webmVideo) == StripReport(method: .untouched))
    }

    @Test("a MediaRecorder-style WebM (Segment and Clusters of unknown size) is walked to its end and left untouched")
    func mediaRecorder() throws {
        for bytes in [Fixture.webm, Array(Fixture.webm.dropLast(10))] {
            let (path, cleanup) = try temporaryFile(bytes)
            defer { cleanup() }
            #expect(try MetadataStripper.strip(fileAt: path, type: .webmAudio) == StripReport(method: .untouched))
            #expect(try read(path) == bytes)
        }
    }

    @Test("a LOCATION tag after Clusters of unknown size is found")
    func tagsAfterUnknownSizeClusters() throws {
        let location = Fixture.simpleTag("location-eng", Fixture.webmLocation)
        let tags = Fixture.ebmlElement(0x1254_C367, Fixture.ebmlElement(0x7373, location))
        let bytes = Fixture.ebml(docType: "webm", after: tags)
        let (path, cleanup) = try temporaryFile(bytes)
        defer { cleanup() }

        let report = try MetadataStripper.strip(fileAt: path, type: .webmAudio)
        let stripped = try read(path)

        #expect(report.removedLocation && report.removed.count == 1)
        #expect(!stripped.contains(Fixture.webmLocation) && stripped.count == bytes.count)
        let at = try #require(bytes.firstRange(of: location)).lowerBound
        #expect(stripped[..<at] == bytes[..<at])
        #expect(stripped[at] == 0xEC)
    }

    @Test("a WebM whose structure cannot be walked is refused")
    func malformed() throws {
        let cluster = Fixture.ebmlUnknownSize(0x1F43_B675, Fixture.clusterBody)
        let segment = Fixture.matroskaInfoAndTracks
        let tagsPastEnd = Fixture.ebmlElement(0x1254_C367, Fixture.ebmlElement(0x7373, [0x67, 0xC8, 0x90, 0x45, 0xA3, 0x81]))
        let cases: [(String, [UInt8])] = [
            ("an unknown element inside a Cluster of unknown size",
             Fixture.ebmlHeader(docType: "webm") + Fixture.ebmlUnknownSize(0x1853_8067, segment + cluster + [0x81, 0x81, 0x00])),
            ("a SimpleTag running past its Tag",
             Fixture.ebmlHeader(docType: "webm") + Fixture.ebmlUnknownSize(0x1853_8067, segment + tagsPastEnd)),
            ("Tags of unknown size",
             Fixture.ebmlHeader(docType: "webm") + Fixture.ebmlUnknownSize(0x1853_8067, segment + Fixture.ebmlUnknownSize(0x1254_C367, []))),
            ("a Segment longer than the file",
             Fixture.ebmlHeader(docType: "webm") + Fixture.ebmlElement(0x1853_8067, segment).dropLast(3)),
            ("bytes that are not an element after the Segment",
             Fixture.ebmlHeader(docType: "webm") + Fixture.ebmlElement(0x1853_8067, segment) + [0x00, 0x00]),
        ]
        for (name, bytes) in cases {
            let (path, cleanup) = try temporaryFile(bytes)
            defer { cleanup() }
            #expect(throws: MediaFileError.self, "\(name)") { try MetadataStripper.strip(fileAt: path, type: .webmVideo) }
        }
    }
}

/// An independent EBML reader for checking what the patcher wrote.
struct EBMLElement {
    var id: UInt32
    var payload: Int
    var end: Int

    static func read(_ bytes: [UInt8], at offset: Int) -> EBMLElement? {
        guard offset < bytes.count, bytes[offset] != 0 else { return nil }
        let idLength = bytes[offset].leadingZeroBitCount + 1
        let sizeAt = offset + idLength
        guard sizeAt < bytes.count, bytes[sizeAt] != 0 else { return nil }
        let sizeLength = bytes[sizeAt].leadingZeroBitCount + 1
        guard sizeAt + sizeLength <= bytes.count else { return nil }
        let id = bytes[offset..<sizeAt].reduce(0) { $0 << 8 | UInt32($1) }
        var size = Int(bytes[sizeAt]) & (0xFF >> sizeLength)
        for byte in bytes[sizeAt + 1..<sizeAt + sizeLength] { size = size << 8 | Int(byte) }
        return EBMLElement(id: id, payload: sizeAt + sizeLength, end: sizeAt + sizeLength + size)
    }

    static func children(_ bytes: [UInt8], of parent: EBMLElement) throws -> [EBMLElement] {
        var children: [EBMLElement] = []
        var offset = parent.payload
        while offset < parent.end {
            guard let child = read(bytes, at: offset), child.end <= parent.end else { throw WalkError.bad("element at \(offset)") }
            children.append(child)
            offset = child.end
        }
        return children
    }
}
