"""An OpenID Connect issuer on 127.0.0.1 for the web identity tests: the token a pod's service
account would hold, signed RS256 by a key whose certificate the issuer publishes where an S3
server's STS looks for it (Keycloak's layout, which Ceph's RADOS Gateway reads:
ISSUER/.well-known/openid-configuration naming ISSUER/protocol/openid-connect/certs).

    issuer = Issuer()             # serving at once, in a thread
    issuer.url                    # http://127.0.0.1:PORT/realms/workbench
    issuer.thumbprint             # SHA-1 of the certificate, as an OIDC provider registers it
    issuer.token()                # a signed JWT, valid one hour
"""
import base64
import datetime
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Issuer:
    audience = "workbench"
    subject = "system:serviceaccount:ci:workbench"

    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "workbench test issuer")])
        now = datetime.datetime.now(datetime.timezone.utc)
        certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(self.key.public_key())
                       .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                       .not_valid_after(now + datetime.timedelta(days=7)).sign(self.key, hashes.SHA256()))
        self.der = certificate.public_bytes(serialization.Encoding.DER)
        self.thumbprint = hashlib.sha1(self.der).hexdigest()
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.endswith("/.well-known/openid-configuration"):
                    body = {"issuer": issuer.url, "jwks_uri": issuer.url + "/protocol/openid-connect/certs",
                            "id_token_signing_alg_values_supported": ["RS256"]}
                elif self.path.endswith("/protocol/openid-connect/certs"):
                    body = {"keys": [issuer.jwk()]}
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/realms/workbench"

    def jwk(self):
        numbers = self.key.public_key().public_numbers()
        return {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": "workbench",
                "n": b64url(numbers.n.to_bytes(256, "big")), "e": b64url(numbers.e.to_bytes(3, "big")),
                "x5c": [base64.b64encode(self.der).decode()]}

    def token(self, lifetime=3600):
        now = int(time.time())
        header = {"alg": "RS256", "typ": "JWT", "kid": "workbench"}
        claims = {"iss": self.url, "sub": self.subject, "aud": self.audience, "client_id": self.audience,
                  "iat": now, "nbf": now - 60, "exp": now + lifetime}
        signed = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
        signature = self.key.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256())
        return signed + "." + b64url(signature)

    def stop(self):
        self.server.shutdown()
