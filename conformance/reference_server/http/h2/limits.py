"""What kube-apiserver's secure port configures for HTTP/2 (staging/src/k8s.io/apiserver/pkg/server/
secure_serving.go, `Serve`) and the defaults of Go's server it leaves alone (golang.org/x/net/http2/server.go)."""
from __future__ import annotations

RESOURCE_BODY_99_PERCENTILE = 256 * 1024  # secure_serving.go: `resourceBody99Percentile`
# --http2-max-streams-per-connection defaults to 0, which Serve turns into 100 ("match http2.initialMaxConcurrentStreams
# used by clients")
MAX_CONCURRENT_STREAMS = 100
MAX_READ_FRAME_SIZE = RESOURCE_BODY_99_PERCENTILE              # HTTP2Config.MaxReadFrameSize
MAX_RECEIVE_BUFFER_PER_STREAM = RESOURCE_BODY_99_PERCENTILE    # HTTP2Config.MaxReceiveBufferPerStream
MAX_RECEIVE_BUFFER_PER_CONNECTION = RESOURCE_BODY_99_PERCENTILE * MAX_CONCURRENT_STREAMS
# http.Server.MaxHeaderBytes (1 << 20); server.go `maxHeaderListSize`: n + typicalHeaders(10) * perFieldOverhead(32)
MAX_HEADER_BYTES = 1 << 20
MAX_HEADER_LIST_SIZE = MAX_HEADER_BYTES + 10 * 32
PREFACE_TIMEOUT = 10.0  # server.go `prefaceTimeout`
DEFAULT_WINDOW = 65535  # RFC 9113's initial window; a larger connection window is opened by a WINDOW_UPDATE
