import KithHTTP

/// `application/x-www-form-urlencoded` bodies and query strings.
///
/// What was read, encoded again with `PercentEncoding` and parsed, must give
/// the same fields: the decoder and the encoder Kith builds links with agree.
enum FormDataHarness: FuzzHarness {
    static let name = "form-data"

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let form = try? FormData.parseURLEncoded(input) else { return }
        // An unreadable value is kept only to be shown back beside an error.
        let readable = form.fields.filter { !form.unreadable.contains($0.name) }
        let encoded = readable.map {
            PercentEncoding.encodeQueryComponent($0.name) + "=" + PercentEncoding.encodeQueryComponent($0.value)
        }
        let again: FormData
        do {
            again = try FormData.parseURLEncoded(encoded.joined(separator: "&"))
        } catch {
            fatalError("the re-encoded form was refused (\(error)): \(encoded)")
        }
        require(
            again.unreadable.isEmpty && again.fields.elementsEqual(readable, by: { $0 == $1 }),
            "\(readable) came back as \(again.fields)")
    }
}
