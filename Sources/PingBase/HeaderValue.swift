/// Whether `value` may be written as an HTTP field value as is: visible ASCII and spaces, nothing that
/// could end the line or the head (RFC 9110 §5.5; obs-text and HTAB are not needed by pingcli).
package func isSafeHeaderValue(_ value: String) -> Bool {
    value.utf8.allSatisfy(\.isVisibleOrSpace)
}
