import Glibc
import KithMedia

/// The MP4/MOV location patcher on any bytes, reached through
/// `MetadataStripper` as an MP4 whether or not the file sniffs as one, so the
/// fuzzer need not first find an `ftyp` box.
///
/// Patching works in place: the size never changes, every byte that changes
/// becomes part of a `free` atom (its type or its zeroed payload), and a
/// second pass finds nothing left to remove.
enum ISOLocationPatcherHarness: FuzzHarness {
    static let name = "iso-location-patcher"

    static func run(_ input: UnsafeRawBufferPointer) {
        let original = Array(input)
        let path = ScratchDirectory.write(original, to: "video")
        defer { unlink(path) }
        let first = try? MetadataStripper.strip(fileAt: path, type: .mp4)

        let patched = ScratchDirectory.read(path)
        require(patched.count == original.count, "patching changed the size from \(original.count) to \(patched.count)")
        let freeType = Array("free".utf8)
        for index in patched.indices where patched[index] != original[index] {
            require(
                patched[index] == 0 || freeType.contains(patched[index]),
                "byte \(index) became \(patched[index]), which no neutralised atom holds")
        }
        guard let first else { return }
        let expected: StripReport.Method = first.removed.isEmpty ? .untouched : .patchedInPlace
        require(first.method == expected, "\(first.method) with \(first.removed)")

        let second: StripReport
        do {
            second = try MetadataStripper.strip(fileAt: path, type: .mp4)
        } catch {
            fatalError("a patched file could not be walked again: \(error)")
        }
        require(second.removed.isEmpty, "a second pass still removed \(second.removed)")
    }
}
