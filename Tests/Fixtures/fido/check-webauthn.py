# An independent check of what pingcli's security key hands to a WebAuthn step, with Debian's
# python3-fido2 (Yubico's python-fido2): the attestation object parsed and its packed attestation
# verified, then an assertion's signature verified with the credential's COSE key.
# Usage: check-webauthn.py DIR (attestation, create-hash, authdata, get-hash, signature, rp-id in DIR).
# Prints the attestation type, the credential id in hex and the assertion's counter.
import hashlib
import sys

from fido2.attestation import PackedAttestation
from fido2.ctap2 import AttestationObject, AuthenticatorData


def read(name):
    with open(sys.argv[1] + "/" + name, "rb") as f:
        return f.read()


attestation = AttestationObject(read("attestation"))
assert attestation.fmt == "packed", attestation.fmt
result = PackedAttestation().verify(attestation.att_statement, attestation.auth_data, read("create-hash"))
rp_hash = hashlib.sha256(read("rp-id")).digest()
assert attestation.auth_data.rp_id_hash == rp_hash
credential = attestation.auth_data.credential_data
authenticator_data = AuthenticatorData(read("authdata"))
assert authenticator_data.rp_id_hash == rp_hash
credential.public_key.verify(authenticator_data + read("get-hash"), read("signature"))
print(result.attestation_type.name, credential.credential_id.hex(), authenticator_data.counter)
