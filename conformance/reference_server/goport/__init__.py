"""Ports of Go libraries' behaviour that kube-apiserver's answers show: fmt's verbs, strconv,
encoding/json and encoding/base64, time, sort, net/url and net/mail, regexp, unicode tables, and
evanphx/json-patch. Each module names the Go package and version it follows."""
