"""The HTTP server the test servers run on (imported from the scripts' own folder)."""

import sys
from http.server import ThreadingHTTPServer


class Server(ThreadingHTTPServer):
    """Clients that hang up on purpose (a cancelled transfer, a client told to give up) are
    what the tests are about, not errors: only other failures are printed."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)
