#if canImport(Glibc)
    import Glibc
#endif

/// A new private directory (mode 0700, made by mkdtemp) named `/tmp/pingcli-<purpose>-XXXXXX`, under root's
/// sticky /tmp; the test removes it.
func makeTemporaryDirectory(_ purpose: String) -> String {
    var template = Array("/tmp/pingcli-\(purpose)-XXXXXX".utf8CString)
    return String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
}
