"""Contract 1 (start_embedded/RunningServer) and `serve.main`."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading

import pytest
import requests
import yaml

from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.serve import main


def _threads() -> int:
    """Live threads other than the once-per-process wire warm-up (a daemon nobody waits for)."""
    return sum(1 for t in threading.enumerate() if t.name != "nsconform-wire-warm-up")


def test_start_ready_stop_idempotent(tmp_path):
    before = _threads()
    srv = start_embedded()
    assert srv.url.startswith("http://127.0.0.1:") and srv.token is None and srv.ca_file is None
    assert requests.get(f"{srv.url}/version").json()["gitVersion"] == "v1.33.0-nsconform"
    srv.write_kubeconfig(str(tmp_path / "kc"))
    kc = yaml.safe_load((tmp_path / "kc").read_text())
    assert kc["current-context"] == "nsconform" and kc["clusters"][0]["cluster"]["server"] == srv.url
    srv.stop()
    srv.stop()
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{srv.url}/version", timeout=2)
    assert _threads() <= before


def test_stop_ends_open_watches():
    srv = start_embedded()
    r = requests.get(f"{srv.url}/api/v1/namespaces", params={"watch": "1"}, stream=True, timeout=10)
    lines = r.iter_lines()
    assert next(lines)
    srv.stop()
    rest = [line for line in lines if line]  # the stream ends instead of hanging
    assert len(rest) < 10
    r.close()


def test_unknown_profile_and_port_in_use():
    with pytest.raises(ValueError):
        start_embedded(profile="nope")
    srv = start_embedded()
    try:
        port = int(srv.url.rsplit(":", 1)[1])
        with pytest.raises(OSError):
            start_embedded(port=port)
    finally:
        srv.stop()


def test_kubeconfig_tls_contents(tmp_path):
    srv = start_embedded(tls=True, token="tok")
    try:
        path = tmp_path / "kc"
        srv.write_kubeconfig(str(path))
        kc = yaml.safe_load(path.read_text())
        assert kc["clusters"][0]["cluster"]["certificate-authority-data"]
        assert kc["users"][0]["user"] == {"token": "tok"}
        assert os.path.exists(srv.ca_file)
    finally:
        srv.stop()
    assert not os.path.exists(srv.ca_file)


def test_serve_bad_flag(capsys):
    assert main(["--profile", "bogus"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice" in err
    assert main(["--deviate", "nope"]) == 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_runs_and_stops_on_sigterm(tmp_path):
    port = _free_port()
    kc = tmp_path / "kc"
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from conformance.reference_server.serve import main; "
                             "sys.exit(main(sys.argv[1:]))", "--port", str(port), "--token", "t", "--tls",
                             "--write-kubeconfig", str(kc), "--profile", "design"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert f"listening on https://127.0.0.1:{port}" in first
        assert str(kc) in proc.stdout.readline()
        ca = tmp_path / "ca.crt"
        import base64
        ca.write_bytes(base64.b64decode(yaml.safe_load(kc.read_text())["clusters"][0]["cluster"]
                                        ["certificate-authority-data"]))
        r = requests.get(f"https://127.0.0.1:{port}/api/v1/list/namespaces", headers={"Authorization": "Bearer t"},
                         verify=str(ca))
        assert r.status_code == 200
        busy = subprocess.run([sys.executable, "-c", "import sys; from conformance.reference_server.serve import "
                               "main; sys.exit(main(sys.argv[1:]))", "--port", str(port)],
                              capture_output=True, text=True, timeout=30)
        assert busy.returncode == 1 and busy.stderr.count("\n") == 1 and "cannot listen" in busy.stderr
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0 and "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_serve_sigint(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from conformance.reference_server.serve import main; "
                             "sys.exit(main(sys.argv[1:]))", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "listening on" in proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0 and "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_request_count_counts_every_request():
    srv = start_embedded(token="t0k3n")
    try:
        assert srv.request_count == 0
        s = requests.Session()
        assert s.get(f"{srv.url}/version").status_code == 401  # refused requests count too
        assert s.get(f"{srv.url}/api/v1/namespaces", headers={"Authorization": "Bearer t0k3n"}).status_code == 200
        assert s.get(f"{srv.url}/nope", headers={"Authorization": "Bearer t0k3n"}).status_code == 404
        s.close()
        assert srv.request_count == 3
    finally:
        srv.stop()


def _tls_directories(monkeypatch) -> list[str]:
    """Every TLS directory the servers started from here create, as they are made (the server imports
    `tls.generate` when it starts, so patching the module reaches it)."""
    from conformance.reference_server import tls
    made: list[str] = []
    real = tls.generate

    def recording(*args, **kwargs):
        out = real(*args, **kwargs)
        made.append(out.directory)
        return out
    monkeypatch.setattr(tls, "generate", recording)
    return made


def test_a_server_that_fails_after_listening_closes_and_leaves_no_tls_files(monkeypatch):
    from conformance.reference_server.server import ReferenceServer
    made = _tls_directories(monkeypatch)
    ports: list[int] = []

    def broken(self, hooks):
        ports.append(self.port)
        raise RuntimeError("a post-start controller failed")
    monkeypatch.setattr(ReferenceServer, "_start_apiserver_controllers", broken)
    with pytest.raises(RuntimeError, match="post-start controller failed"):
        start_embedded(tls=True)
    assert made and not any(os.path.exists(d) for d in made)
    with socket.socket() as s:  # the listener is closed: its port can be bound again
        s.bind(("127.0.0.1", ports[0]))


def test_a_failing_stop_still_removes_the_tls_files(monkeypatch):
    from conformance.reference_server.server import ReferenceServer
    made = _tls_directories(monkeypatch)
    srv = start_embedded(tls=True)
    ca_copy = srv.ca_file

    async def broken(self):
        raise RuntimeError("a controller would not stop")
    monkeypatch.setattr(ReferenceServer, "_stop_serving", broken)
    with pytest.raises(RuntimeError, match="would not stop"):
        srv.stop()
    assert made and not any(os.path.exists(d) for d in made)
    assert not os.path.exists(ca_copy)


def test_a_stop_that_times_out_names_where_the_loop_is_and_removes_files(monkeypatch):
    from conformance.reference_server import embedded
    from conformance.reference_server.server import ReferenceServer
    made = _tls_directories(monkeypatch)
    srv = start_embedded(tls=True)
    release = threading.Event()

    async def stuck(self):
        release.wait(30)  # blocks the loop thread, as a stuck synchronous step would
    monkeypatch.setattr(ReferenceServer, "_stop_serving", stuck)
    monkeypatch.setattr(embedded, "STOP_TIMEOUT", 0.2)
    try:
        with pytest.raises(TimeoutError, match=r"did not stop within 0.2 s; its loop thread was at .*stuck.*the stop was waiting at"):
            srv.stop()
        assert not any(os.path.exists(d) for d in made)
    finally:
        release.set()
        srv._thread.join(10)
