// The floor of `floor.c`'s decrypting half in Embedded Swift: read a 32-byte key and a sealed file,
// decrypt it with libsodium's XChaCha20-Poly1305, print it. Built by `make bench` with the toolchain's
// Embedded mode (no runtime metadata, no relocations to speak of), dynamic and static-PIE, to show what a
// Swift program of this size costs without the runtime (docs/performance.md, issue 46).
import CFloor

func slurp(_ path: UnsafePointer<CChar>, _ buffer: UnsafeMutablePointer<UInt8>, _ size: Int) -> Int {
    let descriptor = floor_open(path)
    if descriptor < 0 { return 0 }
    let count = read(descriptor, buffer, size)
    close(descriptor)
    return count < 0 ? 0 : count
}

@_cdecl("main")
func floorMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    guard argc == 3, let keyPath = argv[1], let filePath = argv[2] else { return 2 }
    let key = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
    let input = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
    let output = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096 + 64)
    guard slurp(keyPath, key, 32) == 32 else { return 2 }
    let count = slurp(filePath, input, 4096)
    guard count >= 40 else { return 4 }
    var length: UInt64 = 0
    guard crypto_aead_xchacha20poly1305_ietf_decrypt(output, &length, nil, input + 24, UInt64(count - 24), nil, 0, input, key) == 0
    else { return 5 }
    output[Int(length)] = 10
    guard write(1, output, Int(length) + 1) >= 0 else { return 6 }
    sodium_memzero(key, 32)
    return 0
}
