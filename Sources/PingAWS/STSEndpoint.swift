import PingBase

/// Where STS is, as the AWS tools find it
/// ([service-specific endpoints](https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html)):
/// `AWS_ENDPOINT_URL_STS`, else `AWS_ENDPOINT_URL`, else the regional endpoint of `--region`, `AWS_REGION`
/// or `AWS_DEFAULT_REGION`, else the global `https://sts.amazonaws.com`. The ID token travels to it, so it
/// passes the endpoint policy's rule for an issuer: https, or plain http only on a loopback address.
public enum STSEndpoint {
    public static let global = "https://sts.amazonaws.com"

    /// The endpoint for `region` (the flag's; nil: the environment's).
    public static func resolve(region: String?, environment: Environment) throws(AWSInputFailure) -> EndpointURL {
        for name in ["AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL"] {
            guard let text = environment[name], !text.isEmpty else { continue }
            do {
                return try EndpointPolicy.checkIssuer(text)
            } catch {
                throw .endpoint(name: name, error)
            }
        }
        let region = region ?? [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].compactMap { $0 }.first { !$0.isEmpty }
        guard let region else { return try! EndpointURL(global) }
        let text = "https://sts.\(try checkedRegion(region)).amazonaws.com\(region.startsWithText("cn-") ? ".cn" : "")"
        do {
            return try EndpointPolicy.checkIssuer(text)
        } catch {
            throw .region
        }
    }

    /// A region name: lower-case letters, digits and hyphens, a letter first (`us-east-1`, `eu-central-2`).
    public static func checkedRegion(_ text: String) throws(AWSInputFailure) -> String {
        guard (2...40).contains(text.utf8.count), text.utf8.first?.isASCIILetter == true,
            text.utf8.allSatisfy({ (0x61...0x7A).contains($0) || $0.isASCIIDigit || $0 == UInt8(ascii: "-") })
        else { throw .region }
        return text
    }
}
