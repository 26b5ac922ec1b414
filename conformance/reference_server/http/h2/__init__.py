"""HTTP/2 over TLS, chosen per connection by ALPN, as kube-apiserver's secure port offers it
(staging/src/k8s.io/apiserver/pkg/server/secure_serving.go: `NextProtos: h2, http/1.1` and its `HTTP2Config`).

The pure-Python `h2` library does framing, HPACK, flow control and SETTINGS; each stream is bridged into the same
aiohttp request handler (http/app.py) that serves HTTP/1.1, so every route and the whole handler chain answer both.
Where `h2` would answer differently from Go's server, this package follows golang.org/x/net/http2/server.go.

- `limits.py`: the SETTINGS and limits kube-apiserver configures;
- `conn.py`: the `h2` connection with Go's stream-level answers (too many streams, bad or oversized headers);
- `writer.py`: a stream's aiohttp payload writer (HEADERS and flow-controlled DATA frames);
- `protocol.py`: the asyncio protocol of one HTTP/2 connection (streams, GOAWAY, idle and preface timers);
- `alpn.py`: the protocol chooser a TLS listener runs, HTTP/2 or aiohttp's HTTP/1.1 handler.
"""
from __future__ import annotations

from .alpn import ALPN_PROTOCOLS, AlpnChooser
from .protocol import H2Protocol, counts

__all__ = ["ALPN_PROTOCOLS", "AlpnChooser", "H2Protocol", "counts"]
