import KithTestSupport
import Foundation
@testable import KithMedia
import Testing

/// Files as real tools write them, made at test time so each case shows
/// exactly how its location got in.
@Suite("Location stripping, checked by exiftool and ffprobe",
       .enabled(if: Tools.mediaTools, "needs exiftool and ffmpeg (Debian: libimage-exiftool-perl, ffmpeg); `make test` installs them"))
struct LocationToolTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var file: String
        var type: MediaType
        /// Shell commands run in a fresh directory; they leave `file` there.
        var make: String
        var testDescription: String { name }
    }

    private static let video = "ffmpeg -v error -f lavfi -i testsrc=d=1:s=64x64:r=10 -f lavfi -i sine=d=1 -shortest"
    private static let xmpGPS = "-XMP:GPSLatitude=48.8577 -XMP:GPSLongitude=2.295"
    private static let iso6709 = "location=+48.8577+002.2950/"

    static let cases: [Case] = [
        Case(name: "animated GIF, XMP GPS and a comment", file: "f.gif", type: .gif, make: """
            ffmpeg -v error -f lavfi -i testsrc=d=1:s=32x32:r=10 -frames:v 3 f.gif && \
            exiftool -q -overwrite_original \(xmpGPS) -Comment='near the tower' f.gif
            """),
        Case(name: "JPEG, Exif and XMP GPS", file: "f.jpg", type: .jpeg, make: """
            ffmpeg -v error -f lavfi -i testsrc=d=1:s=32x32 -frames:v 1 f.jpg && \
            exiftool -q -overwrite_original -GPSLatitude=48.8577 -GPSLatitudeRef=N -GPSLongitude=2.295 -GPSLongitudeRef=E \(xmpGPS) f.jpg
            """),
        Case(name: "MOV, XMP_ and ©xyz item by exiftool's defaults", file: "f.mov", type: .quickTime, make: """
            \(video) -c:v mpeg4 -c:a aac f.mov && \
            exiftool -q -overwrite_original \(xmpGPS) -GPSCoordinates='48.8577, 2.295, 35' f.mov
            """),
        Case(name: "MOV, Apple location keys and udta ©xyz", file: "f.mov", type: .quickTime, make: """
            \(video) -c:v mpeg4 -c:a aac f.mov && \
            exiftool -q -overwrite_original -Keys:GPSCoordinates='48.8577, 2.295, 35' -Keys:LocationName=Eiffel \
            -UserData:GPSCoordinates='48.8577, 2.295, 35' f.mov
            """),
        Case(name: "MP4, XMP uuid and ©xyz item", file: "f.mp4", type: .mp4, make: """
            \(video) -c:v mpeg4 -c:a aac f.mp4 && \
            exiftool -q -overwrite_original \(xmpGPS) -GPSCoordinates='48.8577, 2.295, 35' f.mp4
            """),
        Case(name: "WebM Opus, LOCATION tag", file: "f.webm", type: .webmAudio, make: """
            ffmpeg -v error -f lavfi -i sine=d=1 -metadata \(iso6709) -c:a libopus f.webm
            """),
        Case(name: "WebM VP8, file and stream LOCATION tags", file: "f.webm", type: .webmVideo, make: """
            \(video) -c:v libvpx -c:a libopus -metadata \(iso6709) -metadata:s:v:0 \(iso6709) f.webm
            """),
        // Written to a pipe, ffmpeg cannot go back to fill in the Segment's size.
        Case(name: "WebM written to a pipe, Segment of unknown size", file: "f.webm", type: .webmVideo, make: """
            \(video) -c:v libvpx -c:a libopus -metadata \(iso6709) -f webm pipe:1 > f.webm
            """),
        // Converting a tagged MOV carries its QuickTime location keys into Matroska tags.
        Case(name: "WebM converted from a MOV with Apple location keys", file: "f.webm", type: .webmVideo, make: """
            \(video) -c:v mpeg4 -c:a aac f.mov && \
            exiftool -q -overwrite_original -Keys:GPSCoordinates='48.8577, 2.295, 35' -Keys:LocationName=Eiffel f.mov && \
            ffmpeg -v error -i f.mov -c:v libvpx -c:a libopus f.webm
            """),
    ]

    @Test("a file tagged by a real tool keeps no location field, and probes and decodes as before", arguments: cases)
    func noLocationRemains(_ example: Case) throws {
        let directory = try TemporaryDirectory("kith-location")
        let path = directory.path + "/" + example.file
        try run("/bin/sh", ["-c", "cd '\(directory.path)' && " + example.make])
        try #require(!locationFields(path).isEmpty, "the tool wrote no location, so this case proves nothing")
        let probeBefore = try probe(path, kind: example.type.kind)
        let sizeBefore = try read(path).count

        let report = try MetadataStripper.strip(fileAt: path, type: example.type)

        #expect(report.method != .untouched)
        #expect(try locationFields(path) == [])
        #expect(try probe(path, kind: example.type.kind) == probeBefore)
        let tags = try run(Tools.path("ffprobe")!, ["-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "compact", path])
        #expect(!tags.lowercased().contains("location") && !tags.contains("48.85"), "\(tags)")
        try run(Tools.path("ffmpeg")!, ["-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
        if example.type.kind != .photo {
            #expect(try read(path).count == sizeBefore, "patched in place")
        }
    }

    /// exiftool's fields that name a place or a coordinate, or whose value
    /// holds the latitude the cases write.
    private func locationFields(_ path: String) throws -> [String] {
        let output = try run(Tools.path("exiftool")!, ["-j", "-a", "-G1", "-n", path])
        let objects = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]]
        let fields = try #require(objects?.first)
        let words = ["gps", "location", "latitude", "longitude", "xmp"]
        return fields.compactMap { key, value in
            let name = key.lowercased()
            guard !name.hasPrefix("system:") else { return nil }
            return words.contains { name.contains($0) } || "\(value)".contains("48.85") ? "\(key)=\(value)" : nil
        }.sorted()
    }

    /// What a player would see: streams, their sizes and packet (frame)
    /// counts, and for sound and video the container's duration. A still's
    /// duration is ffprobe's guess and changes with the file's size.
    private func probe(_ path: String, kind: MediaKind) throws -> String {
        let entries = "stream=codec_name,width,height,nb_read_packets" + (kind == .photo ? "" : ":format=duration")
        return try run(Tools.path("ffprobe")!, ["-v", "error", "-count_packets", "-of", "compact", "-show_entries", entries, path])
    }
}
