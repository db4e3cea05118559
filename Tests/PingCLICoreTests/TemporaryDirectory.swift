import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A new private directory (mode 0700, made by mkdtemp) named `pingcli-<purpose>-XXXXXX` in this test
/// process's own directory under /tmp (`testRunDirectory`), which goes when the process exits.
func makeTemporaryDirectory(_ purpose: String) -> String {
    var template = Array("\(testRunDirectory)/pingcli-\(purpose)-XXXXXX".utf8CString)
    return String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
}

/// `/tmp/pingcli-unit-XXXXXX`, made on first use, holding every directory the unit tests make, and removed
/// with all of them when the test process exits: the tests do not remove their own, and each
/// run of the suite used to leave a few thousand behind.
let testRunDirectory: String = {
    var template = Array("/tmp/pingcli-unit-XXXXXX".utf8CString)
    let path = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
    atexit { removeTestRunDirectory() }
    return path
}()

private func removeTestRunDirectory() {
    try? FileManager.default.removeItem(atPath: testRunDirectory)
}
