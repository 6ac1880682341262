import CQREncode
import KithTemplates

/// QR codes of invite and sign-in links, as inline SVG that prints crisply
/// at any size. libqrencode does the encoding (Reed–Solomon, masking,
/// version choice), which is easy to get subtly wrong by hand.
enum QRCode {
    /// The blank border, in modules, that the QR specification requires so a
    /// scanner can find the finder patterns.
    static let quietZone = 4

    /// The code for `text` as one `<svg>` element: a white square with a
    /// single `<path>` for the dark modules, so it scans from a screen in
    /// either theme and from paper. `label` becomes the accessible name.
    /// The element has no intrinsic size: CSS sizes it.
    ///
    /// Error correction is level M (about 15% of the symbol can be damaged or
    /// covered); the text is encoded as bytes, case preserved. Returns empty
    /// HTML when libqrencode refuses the text: longer than a version 40 code
    /// holds at level M (2,331 bytes), which no Kith link comes near.
    static func svg(for text: String, label: String) -> HTML {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return .empty }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let modules = code.pointee.data else { return .empty }
        let pathData = darkModulesPath(width: width) { row, column in
            // libqrencode sets bit 0 of each module byte when it is dark;
            // the other bits describe what the module is part of.
            modules[row * width + column] & 1 != 0
        }
        let size = width + 2 * quietZone
        // Every attribute value below is either a literal, a number or the
        // path data (digits, spaces and the letters M h v z), except `label`,
        // which the interpolation escapes.
        return """
            <svg class="qr-code" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" \
            shape-rendering="crispEdges" role="img" aria-label="\(label)">\
            <rect width="\(size)" height="\(size)" fill="#FFFFFF"/>\
            <path fill="#2A2433" d="\(pathData)"/></svg>
            """
    }

    /// Path data covering the dark modules, offset by the quiet zone. Each
    /// run of adjacent dark modules in a row becomes one rectangle
    /// (`M x y h n v1 h-n z`), which keeps a typical link's code to a few
    /// kilobytes instead of one rectangle per module.
    static func darkModulesPath(width: Int, isDark: (_ row: Int, _ column: Int) -> Bool) -> String {
        var path = ""
        for row in 0..<width {
            var column = 0
            while column < width {
                guard isDark(row, column) else {
                    column += 1
                    continue
                }
                let start = column
                while column < width, isDark(row, column) { column += 1 }
                let run = column - start
                path += "M\(start + quietZone) \(row + quietZone)h\(run)v1h-\(run)z"
            }
        }
        return path
    }
}
