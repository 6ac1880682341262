import Glibc
import KithMedia

/// An upload as Kith handles it: written to a file, sniffed, and stripped of
/// metadata when its type is allowed.
///
/// A stripped file must still be of the type it was accepted as, and
/// stripping it again must find no location and change nothing: what the
/// first pass left is what Kith serves.
enum MetadataStripperHarness: FuzzHarness {
    static let name = "metadata-stripper"

    static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        guard case .allowed(let type) = MediaSniffer.identify(Array(bytes.prefix(MediaSniffer.prefixLength))) else {
            return
        }
        let path = ScratchDirectory.write(bytes, to: "upload")
        defer { unlink(path) }
        guard (try? MetadataStripper.strip(fileAt: path, type: type)) != nil else { return }

        let stripped = ScratchDirectory.read(path)
        if type.container == .jpeg {
            // The sniffer judges a JPEG by its first segment, which may be the
            // metadata that was just removed (SOI, APP1, nothing else): the type
            // was decided before stripping, so only the SOI must survive.
            require(stripped.starts(with: [0xFF, 0xD8]), "a stripped JPEG lost its SOI")
        } else {
            let sniffed = MediaSniffer.identify(Array(stripped.prefix(MediaSniffer.prefixLength)))
            require(sniffed == .allowed(type), "a \(type) sniffs as \(sniffed) once stripped")
        }

        let second: StripReport
        do {
            second = try MetadataStripper.strip(fileAt: path, type: type)
        } catch {
            fatalError("a stripped \(type) could not be stripped again: \(error)")
        }
        require(!second.removedLocation, "a stripped \(type) still had a location: \(second)")
        require(ScratchDirectory.read(path) == stripped, "stripping a stripped \(type) changed it again: \(second)")
    }
}
