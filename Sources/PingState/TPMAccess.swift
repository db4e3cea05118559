import PingBase
import PingCrypto

extension TPM2.Access {
    /// This access with its TCTI (`TPM2TOOLS_TCTI`, as tpm2-tools reads it) through its gate; an empty
    /// one is the system default. Checked only where a TPM is needed, so a bad value fails no other command.
    package func checked() throws(SealedFailure) -> TPM2.Access {
        if case .environment(let environment) = self { return try TPM2.Access.system(tcti: environment["TPM2TOOLS_TCTI"]).checked() }
        guard case .system(let tcti?) = self else { return self }
        if tcti.isEmpty { return .system(tcti: nil) }
        guard TPM2.checkTCTI(tcti) else { throw .tctiRefused }
        return self
    }

    /// The environment the device settings are read from (`TPM2TOOLS_TCTI`, and a Device Binding step's
    /// `PINGCLI_DEVICE_KEY_ALGORITHM`), when this access is still that environment's.
    package var environment: Environment? {
        if case .environment(let environment) = self { return environment }
        return nil
    }

    /// Where the TPM is, for messages.
    package var name: String {
        switch self {
        case .system(let tcti?): return "the TPM at TPM2TOOLS_TCTI=\(displaySafe(tcti, limit: 120))"
        default: return "this machine's TPM"
        }
    }
}
