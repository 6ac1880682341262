/// The one Exif fact Kith keeps: orientation, so a portrait photo taken with a
/// sideways sensor stays upright. Everything else in Exif (GPS position,
/// camera serial numbers, maker notes, the thumbnail) is dropped by writing a
/// fresh TIFF structure rather than editing the old one in place: editing
/// would leave orphaned bytes (a GPS IFD is still in the file even when no tag
/// points at it).
enum Exif {
    static let orientationTag: UInt16 = 0x0112
    static let gpsTag: UInt16 = 0x8825

    struct Summary {
        /// 2–8; nil when absent, 1 (the default) or out of range.
        var orientation: UInt16?
        var hasGPS = false
        var tagCount = 0
        var littleEndian = false
    }

    /// Reads IFD0 of a TIFF structure ("II*\0" or "MM\0*"). Tolerates a
    /// leading "Exif\0\0", which some WebP and PNG writers include.
    static func summary(ofTIFF input: [UInt8]) -> Summary? {
        let tiff = input.has([0x45, 0x78, 0x69, 0x66, 0, 0], at: 0) ? Array(input.dropFirst(6)) : input
        let little: Bool
        if tiff.has([0x49, 0x49, 0x2A, 0x00], at: 0) { little = true }
        else if tiff.has([0x4D, 0x4D, 0x00, 0x2A], at: 0) { little = false }
        else { return nil }
        func u16(_ offset: Int) -> UInt16? { little ? tiff.u16le(at: offset) : tiff.u16be(at: offset) }
        func u32(_ offset: Int) -> UInt32? { little ? tiff.u32le(at: offset) : tiff.u32be(at: offset) }
        guard let ifd = u32(4).map(Int.init), let count = u16(ifd) else { return nil }
        var summary = Summary(tagCount: Int(count), littleEndian: little)
        for index in 0..<Int(count) {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let valueCount = u32(entry + 4) else { return nil }
            if tag == gpsTag { summary.hasGPS = true }
            if tag == orientationTag, type == 3, valueCount == 1, let value = u16(entry + 8), (2...8).contains(value) {
                summary.orientation = value
            }
        }
        return summary
    }

    /// A TIFF structure holding only IFD0 with one Orientation entry (26
    /// bytes), in the byte order the original used.
    static func orientationOnlyTIFF(_ orientation: UInt16, littleEndian: Bool = false) -> [UInt8] {
        var tiff: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        func put16(_ value: UInt16) { littleEndian ? tiff.appendLE16(value) : tiff.appendBE16(value) }
        func put32(_ value: UInt32) { littleEndian ? tiff.appendLE32(value) : tiff.appendBE32(value) }
        put32(8) // IFD0 right after the header
        put16(1) // one entry
        put16(orientationTag); put16(3); put32(1) // SHORT, count 1
        put16(orientation); put16(0) // value, left-justified in its 4 bytes
        put32(0) // no IFD1: no thumbnail
        return tiff
    }

    /// What the report says about a dropped or rewritten Exif block.
    static func describe(_ summary: Summary?, in container: String) -> String {
        guard let summary else { return "\(container) Exif (unreadable)" }
        let kept = summary.orientation == nil ? 0 : 1
        var text = "\(container) Exif: \(summary.tagCount - kept) IFD0 tags"
        if summary.hasGPS { text += " including the GPS IFD" }
        if kept == 1 { text += "; Orientation kept" }
        return text
    }
}
