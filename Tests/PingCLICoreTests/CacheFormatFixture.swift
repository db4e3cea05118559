/// A token cache as pingcli wrote it before format 3 (format 2: the token set as JSON), made by
/// `pingcli login --profile fx` at the emulator with the build of commit 92434fe, with its key and
/// profile.json, so that a test can check that such a cache still reads and is upgraded.
enum CacheFormat2Fixture {
    static let key = "+Stci4tdyo18Z7egYJZpeGxD7JJT+8SEBNiwGgahVcE="

    static let profileJSON = """
        {
          "client_id" : "fixture-client",
          "issuer" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as",
          "metadata" : {
            "authorization_endpoint" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as/authorize",
            "authorization_response_iss_parameter_supported" : true,
            "code_challenge_methods_supported" : [
              "S256"
            ],
            "device_authorization_endpoint" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as/device_authorization",
            "end_session_endpoint" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as/signoff",
            "introspection_endpoint" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as/introspect",
            "issuer" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as",
            "jwks_uri" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as/jwks",
            "revocation_endpoint" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as/revoke",
            "token_endpoint" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as/token",
            "token_endpoint_auth_methods_supported" : [
              "none",
              "client_secret_basic",
              "client_secret_post"
            ],
            "userinfo_endpoint" : "http://127.0.0.1:42035/9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b/as/userinfo"
          },
          "scopes" : [
            "openid",
            "profile",
            "email"
          ]
        }
        """

    /// tokens.enc, base64.
    static let tokens = """
        UENMSQIAAADeAQ9z7rFwU/1ejQRMQhDkFnfg3YdjUPDT3o/ohNJIP43pdXReqGQ9+Kl61QwaEnGJe4kesH97B7jk6jopJkRNlrtI42Qqdi3cuJIhijhIt4Lb
        frsatMaIE9eFwqROr6khyyIkbJzkiLdloeWXMtA+njHx4qCETHTI9cjtur8XumlQJ8Vc60a3XvL0OXrbN4rxoQFMnn8VL22WwKr1xrytF08mzVhBAvbNFENi
        DvbYcY26V51LhsqR1QlnMIMT7jNp4M3rWDEoKhXp4G5S3JN1Kwj8jv7/at7IG0rGPrpzNEFQEIcAO7OsTC86KGZ6zrPXFSm+wCKTJpFjQVUyf+4dKL7r/UPm
        qiaWoAyejb3BoOhng6iHUVKCMQkyeTZ00fOGrUu5HnJf9w3kPpi1jONSaqnN1zGa42T6sU/HWT8qOtIqUQ5t+bM5t9UBZ7hrWQhfbcenQCx56LpkBIXG//Fn
        DG2sOwGqKZjaVZYDyPUKcWAbdzf3rqDPqwkVIMp0pE29NYT8LDDu0Q7pYXih3uhrKkgONaOYxhM/g+ffoL/X0zkj9v/imh2zRNxNMFItUNXcjd2sbAZJrXch
        ABOaQvIRkpQRucZdcBYlfAwTeuyokxbrmjuKhjK0kOAFHPKhuHkRPsxXaysq9Zs98DPtXvUbg8EaRjM7H718B2FWpt4RlUlCcIviu9vho1xu2YZKD6eREO+x
        i+cKm1H2uOnjASgf3mRfCxyfYA1+KkRQQZvaMZpgM9lfnilVsYoQ/m6e10nvYS+XPMgJywW8ytu9svNBJRV2N/5yJIzH8KTSlCeZYdv4Kl/ot5HpBYrQXxyP
        ix2hIawEQuymz0klNieFe5nubjVeuXsxx7cedqpFxc+t7/zwRQco2Rhtubf/Viz1BzonD2PHz+ZU0vA1qm2gUPbIA3ypVxAtRwV44CTEj+bZiMfLe3iXtPX7
        nfCJbwZ2MRuv7N+27s9LPsdDGTux67vPcxKW9tyrofOOFGePY99XFp/L58U/PO0CVxiB1cfU0YpQ1PWhy8HZn0nvZrOnaxpNU1us4R4dYfCW0KAgz/qqrmkd
        P1LmI51rN+HYhYphEDFwQVZmncMOxe7AwNRH15jaka4y8E6NURRUF6/TzodJtVBE39z2Qx6YOgCqsCJoEQybu9ok9z/fKfTUXQdkwVRUODn7718IpYBqMJIh
        wI4kH7gmVqyeY5Vl5UYiBvaKoLaGGgGA9XzpWfIVxE5X1nf0hAAc/97RADP1k19Gvry0pVQpe15/IijJUf8dC4GRjj1PWxL5GI2yNuqaLjQMqNBUN72x1V0z
        +sfGyglQBIs+s7Gym/KW/H89jZTBEUEN8tLpVJr5FS9L1fPPIWzoxAZch9qIctiZU7acv+2ngXApmuNFmW+XJe8vt9nIKfOgwhTgdjSKDgIHT6lDJdt99udG
        WzbBrJ4q0P+MR+5SiYFCmb+vtoPSmBWkN2DFrbvHTB9cAWTIejscnqArzghniVBtQdYW+Ix2AbsMrK2C0k0dcDqM5ddMfO1/elqytbWJKEVDYDDMOzoa4vyE
        F+7JpWuYMECRIHFDsLRYfWlFzfQyYkYFYvdL3LOS9EYRL9bxxGmvZR4S23EjBkZEc33ClgZ7cIkZPyVZJ1ciuptyhoBV/f5qFuhm+MMkNgQcyG3AwQmXuo+o
        nGihpXcpHS8ZxGpb7DXoT7bfbQlB07fhtadyshfEaGLixamZAnmwg58La4uEUuMzOYQsjG4sXeDXcU0trL2TUkHBcz1jNFU82wwO6PrwljuHJEnTCXnZj/Yv
        uPJOdLcB4z9rrcc/4LJ8PJA9xBHm4OiHIQi6LEtCZtban6c69XgW+zLqp47jEb07nXC6I321bxFaW0Y1OM0bJQYVP/SE09Dqj2j9l5a4iZdbyp7oBRUCQpei
        /Ac20Y5BqJWGY40L8duZR+xld6sRyUMaUmkKdXZ3QeStswJ1bn2WEhUINXI60VEgTLlC1fhQ2yo7SZ8t4BSR5gw9JGoS32NCSWplBt9CJ8gDgD+Wp6D/lr9D
        FJ/6qBErLJjnjZqd4zMtBcrmq5EreVebPvdIh65MEId2hwID7A+3wpuUQQQqKVy7wbFo7j4Asn5nSEXJqHrItESNBHVJHF+RSD27mcVH3bPT
        """

    /// What the cache holds (from `pingcli token --format json` and `status --json` of that build).
    static let accessTokenPrefix = "eyJhbGciOiJFZERTQSIsImtpZCI6ImV4NGdmQjNEUVRTQmp5UVciLCJ0eXAiOiJKV1QifQ."
    static let accessTokenSuffix = "Xgj1dHQbmxYk2M7__yWb1NKC-fBeMlgSXYsvMcQyziOSvwFfYqWsiA3o4ijpLdF_WMaPdHU0npk5mFvOUCNRBw"
    static let expiresAt = "2026-11-22T18:41:47Z"
    static let subject = "5a1c0f3e-8b2d-4e6a-9c7f-1d2e3f4a5b6c"
}
