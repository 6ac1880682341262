import Glibc
import KithMedia

/// What every in-place location patcher promises, checked on any bytes
/// handed to `MetadataStripper` as `type`: the size never changes, every byte
/// that changes becomes part of `free` (a neutralised box's or item's type)
/// or a zero (its data), the report says whether anything was removed, and
/// a second pass finds nothing left.
enum InPlacePatching {
    /// `refusedUnchanged`: the patcher checks everything before writing, so a
    /// file it refuses must come back byte for byte.
    static func check(_ input: UnsafeRawBufferPointer, as type: MediaType, refusedUnchanged: Bool) {
        let original = Array(input)
        let path = ScratchDirectory.write(original, to: "media")
        defer { unlink(path) }
        let first = try? MetadataStripper.strip(fileAt: path, type: type)

        let patched = ScratchDirectory.read(path)
        require(patched.count == original.count, "patching changed the size from \(original.count) to \(patched.count)")
        if first == nil, refusedUnchanged { require(patched == original, "a refused file was changed") }
        let freeType = Array("free".utf8)
        for index in patched.indices where patched[index] != original[index] {
            require(
                patched[index] == 0 || freeType.contains(patched[index]),
                "byte \(index) became \(patched[index]), which nothing neutralised holds")
        }
        guard let first else { return }
        let expected: StripReport.Method = first.removed.isEmpty ? .untouched : .patchedInPlace
        require(first.method == expected, "\(first.method) with \(first.removed)")

        let second: StripReport
        do {
            second = try MetadataStripper.strip(fileAt: path, type: type)
        } catch {
            fatalError("a patched file could not be walked again: \(error)")
        }
        require(second.removed.isEmpty, "a second pass still removed \(second.removed)")
    }
}
