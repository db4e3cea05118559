import PingOAuth

extension EndpointOverrides {
    /// The overrides a saved profile recorded: the fields it names, with the values of its (bound,
    /// gated) metadata.
    package init(saved profile: Profile) {
        self.init(saved: profile.endpointOverrides, metadata: profile.metadata)
    }
}
