#if canImport(Glibc)
    import Glibc
#endif

/// A QR code of the device flow's complete verification address, for signing in from a phone. The
/// encoding is Debian's libqrencode (`libqrencode4`), loaded with `dlopen` only when a code is shown:
/// without it pingcli shows no code and needs nothing more.
package enum QRCode {
    /// The modules of a QR code for `text` (true: dark), row by row; nil when libqrencode is missing or
    /// cannot encode it.
    package static func modules(_ text: String) -> [[Bool]]? {
        guard let library = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL) ?? dlopen("libqrencode.so", RTLD_NOW | RTLD_LOCAL),
            let encodeSymbol = dlsym(library, "QRcode_encodeString"), let freeSymbol = dlsym(library, "QRcode_free")
        else { return nil }
        // QRcode *QRcode_encodeString(const char *, int version, QRecLevel, QRencodeMode, int casesensitive)
        typealias Encode = @convention(c) (UnsafePointer<CChar>?, Int32, UInt32, UInt32, Int32) -> UnsafeMutableRawPointer?
        typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Void
        let encode = unsafeBitCast(encodeSymbol, to: Encode.self)
        let release = unsafeBitCast(freeSymbol, to: Free.self)
        // Version 0 (the smallest that fits), error correction level M (1), 8-bit mode (2), case-sensitive.
        guard let code = text.withCString({ encode($0, 0, 1, 2, 1) }) else { return nil }
        defer { release(code) }
        // typedef struct { int version; int width; unsigned char *data; } QRcode; bit 0 of a byte: dark.
        let width = Int(code.load(fromByteOffset: 4, as: Int32.self))
        guard (21...177).contains(width), let data = code.load(fromByteOffset: 8, as: UnsafePointer<UInt8>?.self) else { return nil }
        return (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    /// Lines of half blocks, two rows of modules each, with a light quiet zone: light modules are drawn
    /// (a terminal's light text on its dark background), dark ones left blank.
    package static func render(_ modules: [[Bool]], quietZone: Int = 2) -> [String] {
        let size = modules.count + 2 * quietZone
        func light(_ x: Int, _ y: Int) -> Bool {
            let (column, row) = (x - quietZone, y - quietZone)
            guard modules.indices.contains(row), modules[row].indices.contains(column) else { return true }
            return !modules[row][column]
        }
        return stride(from: 0, to: size, by: 2).map { y in
            String(
                (0..<size).map { x -> Character in
                    switch (light(x, y), y + 1 < size ? light(x, y + 1) : false) {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                })
        }
    }
}
