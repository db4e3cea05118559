/// CTAPHID (CTAP 2.1 §11.2) over 64-byte reports, as libfido2 talks to a HID key: INIT hands out a
/// channel, CBOR carries a CTAP2 message, PING echoes, CANCEL is answered by nothing; anything else is an
/// ERROR. Capabilities: CBOR, no CTAP1 MSG (libfido2 then never falls back to U2F).
public final class CTAPHIDDevice {
    public static let reportSize = 64
    let authenticator: SoftwareAuthenticator
    private var message: (channel: [UInt8], command: UInt8, length: Int, data: [UInt8])?
    private var nextChannel: UInt32 = 1

    public init(_ authenticator: SoftwareAuthenticator) { self.authenticator = authenticator }

    /// One report in; the reports of the response, if this one completed a request.
    public func receive(_ report: [UInt8]) -> [[UInt8]] {
        guard report.count == Self.reportSize else { return [] }
        let channel = Array(report[0..<4])
        if report[4] & 0x80 != 0 {
            let length = Int(report[5]) << 8 | Int(report[6])
            message = (channel, report[4] & 0x7f, length, Array(report[7...].prefix(length)))
        } else if var pending = message, pending.channel == channel {
            pending.data += report[5...].prefix(pending.length - pending.data.count)
            message = pending
        } else {
            return []
        }
        guard let complete = message, complete.data.count >= complete.length else { return [] }
        message = nil
        return respond(channel: complete.channel, command: complete.command, data: complete.data)
    }

    private func respond(channel: [UInt8], command: UInt8, data: [UInt8]) -> [[UInt8]] {
        switch command {
        case 0x06:  // INIT
            guard data.count == 8 else { return frames(channel, 0x3f, [0x03]) }
            let assigned = nextChannel
            nextChannel += 1
            let cid = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: assigned >> $0) }
            // nonce, channel, CTAPHID protocol 2, device version 1.0.0, capabilities CBOR | NMSG.
            return frames(channel, 0x06, data + cid + [2, 1, 0, 0, 0x04 | 0x08])
        case 0x10: return frames(channel, 0x10, authenticator.handle(data))
        case 0x01: return frames(channel, 0x01, data)
        case 0x11: return []
        default: return frames(channel, 0x3f, [0x01])
        }
    }

    private func frames(_ channel: [UInt8], _ command: UInt8, _ payload: [UInt8]) -> [[UInt8]] {
        var reports = [channel + [0x80 | command, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)] + payload.prefix(57)]
        var rest = payload.dropFirst(57)
        var sequence: UInt8 = 0
        while !rest.isEmpty {
            reports.append(channel + [sequence] + rest.prefix(59))
            rest = rest.dropFirst(59)
            sequence += 1
        }
        return reports.map { $0 + [UInt8](repeating: 0, count: Self.reportSize - $0.count) }
    }
}
