import Testing

@testable import PingTerminal

/// The device flow's QR code, encoded by Debian's libqrencode through dlopen.
@Suite("QR code (libqrencode)")
struct QRCodeTests {
    @Test(
        "qr-code: the three finder patterns are where ISO/IEC 18004 puts them, and the rendering is square",
        .enabled(if: QRCode.modules("x") != nil, "needs Debian's libqrencode4 (make deps)"))
    func finderPatterns() throws {
        let modules = try #require(QRCode.modules("https://auth.pingone.com/env/device?user_code=WDJB-MJHT"))
        let width = modules.count
        #expect(width >= 21 && (width - 17) % 4 == 0 && modules.allSatisfy { $0.count == width })
        // A finder pattern: a dark 7x7 ring, a light ring inside it, a dark 3x3 centre.
        func finder(atRow top: Int, column left: Int) -> Bool {
            (0..<7).allSatisfy { y in
                (0..<7).allSatisfy { x in
                    let ring = min(x, y, 6 - x, 6 - y)
                    return modules[top + y][left + x] == (ring != 1)
                }
            }
        }
        #expect(finder(atRow: 0, column: 0) && finder(atRow: 0, column: width - 7) && finder(atRow: width - 7, column: 0))
        #expect(!finder(atRow: width - 7, column: width - 7))
        let lines = QRCode.render(modules)
        #expect(lines.count == (width + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == width + 4 && $0.allSatisfy { "█▀▄ ".contains($0) } })
        #expect(lines[0].allSatisfy { $0 == "█" }, "the quiet zone is light")
    }
}
