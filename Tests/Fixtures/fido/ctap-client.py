# A second host implementation against the tests' software authenticator: Debian's python3-fido2 talks
# CTAPHID to it over its Unix socket (64-byte reports, as SoftwareKeyServer serves libfido2), reads its
# getInfo, takes a PIN token through ClientPIN (protocol two, permissions), registers a resident ES256
# credential, verifies the packed attestation, and signs in without an allow list.
# Usage: ctap-client.py SOCKET PIN RP-ID. Prints: versions, PIN protocol, retries before, credential id,
# the assertion's user id (hex), whether its signature verified.
import hashlib
import socket
import sys

from fido2.attestation import PackedAttestation
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin
from fido2.hid import CtapHidDevice
from fido2.hid.base import CtapHidConnection, HidDescriptor


class SocketConnection(CtapHidConnection):
    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)

    def write_packet(self, data):
        self.socket.sendall(data)

    def read_packet(self):
        packet = b""
        while len(packet) < 64:
            chunk = self.socket.recv(64 - len(packet))
            if not chunk:
                raise OSError("closed")
            packet += chunk
        return packet

    def close(self):
        self.socket.close()


path, pin, rp_id = sys.argv[1], sys.argv[2], sys.argv[3]
ctap = Ctap2(CtapHidDevice(HidDescriptor(path, 0, 0, 64, 64), SocketConnection(path)))
client_pin = ClientPin(ctap)
retries = client_pin.get_pin_retries()[0]
permissions = ClientPin.PERMISSION.MAKE_CREDENTIAL | ClientPin.PERMISSION.GET_ASSERTION
token = client_pin.get_pin_token(pin, permissions, rp_id)
protocol = client_pin.protocol
create_hash = hashlib.sha256(b"python create").digest()
attestation = ctap.make_credential(
    create_hash, {"id": rp_id, "name": "Example"}, {"id": b"id-python", "name": "python"},
    [{"type": "public-key", "alg": -7}], options={"rk": True},
    pin_uv_param=protocol.authenticate(token, create_hash), pin_uv_protocol=protocol.VERSION)
PackedAttestation().verify(attestation.att_statement, attestation.auth_data, create_hash)
credential = attestation.auth_data.credential_data
get_hash = hashlib.sha256(b"python get").digest()
assertion = ctap.get_assertions(rp_id, get_hash)[0]
credential.public_key.verify(assertion.auth_data + get_hash, assertion.signature)
print(",".join(ctap.info.versions), protocol.VERSION, retries, credential.credential_id.hex(),
      assertion.user["id"].hex(), "verified")
