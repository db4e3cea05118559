import PingBase
import PingOAuth

#if canImport(Glibc)
    import Glibc
#endif

/// Checks of `login`'s own inputs that must fail before any network: a usage error names the fix.
package enum LoginInputChecks {
    /// The `prompt` values of [OIDC Core §3.1.2.1](https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest).
    package static let promptValues: Set<String> = ["none", "login", "consent", "select_account"]

    /// `--prompt`: a space-separated list of the values OIDC Core defines, each once; `none` alone.
    package static func prompt(_ value: String) throws(PingCLIError) -> String {
        let values = value.split(separator: " ").map(String.init)
        let fix = "use none, login, consent or select_account (several separated by spaces; none alone)"
        guard !values.isEmpty, values.allSatisfy(promptValues.contains), Set(values).count == values.count,
            !(values.contains("none") && values.count > 1)
        else {
            throw .usage("--prompt \"\(displaySafe(value, limit: 60))\" is not an OpenID Connect prompt: \(fix)", rule: .promptGate)
        }
        return values.joined(separator: " ")
    }

    /// Authorization parameters that ask for a kind of authentication, which pingcli must then check.
    package static let stepUpParameters: Set<String> = ["max_age", "acr_values"]

    /// `--max-age` and `--acr-values`, or the same as `--param max_age=` / `--param acr_values=` (so that
    /// what is sent is always checked): `max_age` a whole number of seconds (OIDC Core §3.1.2.1), at most
    /// ten years; `acr_values` one or more space-separated values of printable ASCII.
    package static func requirements(
        maxAge: String?, acrValues: String?, parameters: [String]
    ) throws(PingCLIError) -> (given: AuthenticationRequirements, forgotten: Set<LoginPlan.StepUpOption>) {
        func given(_ value: String?, _ option: String, _ parameter: String) throws(PingCLIError) -> String? {
            let params = parameters.filter { $0.hasPrefix(parameter + "=") }.map { String($0.dropFirst(parameter.count + 1)) }
            let values = (value.map { [$0] } ?? []) + params
            guard values.count <= 1 else { throw .usage("give --\(option) once (not also as --param \(parameter)=…)", rule: .stepUpGate) }
            return values.first
        }
        var requirements = AuthenticationRequirements()
        var forgotten: Set<LoginPlan.StepUpOption> = []
        if let text = try given(maxAge, "max-age", "max_age") {
            if text.isEmpty {
                forgotten.insert(.maxAge)
            } else {
                guard text.utf8.count <= 10, text.utf8.allSatisfy(\.isASCIIDigit), let seconds = Int(text),
                    seconds <= AuthenticationRequirements.maximumMaxAge
                else {
                    throw .usage(
                        "--max-age must be a whole number of seconds (0 to 315360000), not \"\(displaySafe(text, limit: 20))\" ('' forgets the saved one)",
                        rule: .stepUpGate
                    )
                }
                requirements.maxAge = seconds
            }
        }
        if let text = try given(acrValues, "acr-values", "acr_values") {
            if text.isEmpty {
                forgotten.insert(.acrValues)
            } else {
                let values = text.split(separator: " ").map(String.init)
                guard !values.isEmpty, text.utf8.count <= 1024, text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                    throw .usage(
                        "--acr-values needs space-separated values of printable ASCII, e.g. --acr-values urn:example:mfa ('' forgets the saved ones)",
                        rule: .stepUpGate
                    )
                }
                requirements.acrValues = values
            }
        }
        return (requirements, forgotten)
    }

    /// `--param KEY=VALUE`s: not a parameter pingcli sets itself; the step-up ones are left to
    /// `requirements`, which checks them.
    package static func parameters(_ given: [String]) throws(PingCLIError) -> [FormEncoding.Pair] {
        var parameters: [FormEncoding.Pair] = []
        for pair in given {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw .usage("--param needs KEY=VALUE, not \"\(displaySafe(pair, limit: 60))\"", rule: .paramGate)
            }
            let key = String(pair[..<equals])
            guard !AuthorizationRequest.reservedParameters.contains(key) else {
                throw .usage("--param cannot set \(key): pingcli sets it itself", rule: .paramGate)
            }
            if stepUpParameters.contains(key) { continue }
            parameters.append((key, String(pair[pair.index(after: equals)...])))
        }
        return parameters
    }

    /// The most a CA bundle may hold (Debian's whole bundle is about 200 KiB).
    package static let maximumCABytes = 4 << 20

    /// `--ca-file` / `PINGCLI_CA_FILE`: made absolute (it is saved with the profile and used from any
    /// directory), and it must be a readable regular file of at most 4 MiB holding a PEM certificate.
    package static func caFile(_ path: String, option: String) throws(PingCLIError) -> String {
        let absolute = try ClientTLSInputs.absolute(path, option: option)
        let shown = displaySafe(absolute, limit: 200)
        let descriptor = open(absolute, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .usage("\(option) \(shown): \(String(cString: strerror(errno))): give the PEM file of the issuer's CA", rule: .caFileGate)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= maximumCABytes else {
            throw .usage(
                "\(option) \(shown) is not a regular file of at most 4 MiB: give the PEM file of the issuer's CA", rule: .caFileGate)
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            offset += count
        }
        guard String(decoding: bytes[..<offset], as: UTF8.self).containsText("-----BEGIN CERTIFICATE-----") else {
            throw .usage(
                "\(option) \(shown) holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the PEM file of the issuer's CA",
                rule: .caFileGate)
        }
        return absolute
    }
}
