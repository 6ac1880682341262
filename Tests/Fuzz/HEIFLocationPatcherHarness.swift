import Glibc
import KithMedia

/// The HEIC location patcher on any bytes, reached through `MetadataStripper`
/// as a HEIC whether or not the file sniffs as one.
///
/// Patching works in place and all or nothing: the size never changes, a
/// refused file is left exactly as it was, every byte that changes becomes
/// part of `free` (an item's type) or a zero (its data), and a second pass
/// finds nothing left to remove.
enum HEIFLocationPatcherHarness: FuzzHarness {
    static let name = "heif-location-patcher"

    static func run(_ input: UnsafeRawBufferPointer) {
        let original = Array(input)
        let path = ScratchDirectory.write(original, to: "photo")
        defer { unlink(path) }
        let first = try? MetadataStripper.strip(fileAt: path, type: .heic)

        let patched = ScratchDirectory.read(path)
        require(patched.count == original.count, "patching changed the size from \(original.count) to \(patched.count)")
        guard let first else {
            require(patched == original, "a refused file was changed")
            return
        }
        let freeType = Array("free".utf8)
        for index in patched.indices where patched[index] != original[index] {
            require(
                patched[index] == 0 || freeType.contains(patched[index]),
                "byte \(index) became \(patched[index]), which no neutralised item holds")
        }
        let expected: StripReport.Method = first.removed.isEmpty ? .untouched : .patchedInPlace
        require(first.method == expected, "\(first.method) with \(first.removed)")

        let second: StripReport
        do {
            second = try MetadataStripper.strip(fileAt: path, type: .heic)
        } catch {
            fatalError("a patched file could not be walked again: \(error)")
        }
        require(second.removed.isEmpty, "a second pass still removed \(second.removed)")
    }
}
