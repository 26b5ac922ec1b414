"""Record a list/watch history from the embedded reference server, for tests/harness/test_history.py.

    python -m tests.tools.record_history > tests/harness/data/watch_history.json

Three writers in three namespaces run the suite's write script concurrently while a cross-namespace watch,
started from a LIST's resourceVersion, records what the server delivers. The file holds what the writers
were acknowledged and what the watch received; the tests replay it and inject faults into it.
"""
from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import asdict

import requests

from conformance.fixtures.content import body_for
from conformance.reference_server.embedded import start_embedded
from conformance.suites.test_list_watch_history import SCRIPT, Recorder, _run_writer


class _Api:
    def __init__(self, url: str):
        self.url, self.s = url, requests.Session()

    def post(self, path, body):
        return self.s.post(self.url + path, json=body)

    def put(self, path, body):
        return self.s.put(self.url + path, json=body)

    def delete(self, path):
        return self.s.delete(self.url + path)


class _Paths:
    @staticmethod
    def content(ns, resource, name=None):
        return f"/api/v1/namespaces/{ns}/{resource}" + (f"/{name}" if name else "")


class _Content:
    body_for = staticmethod(body_for)


def main() -> None:
    srv = start_embedded()
    try:
        api = _Api(srv.url)
        spaces = ["rec-a", "rec-b", "rec-c"]
        for ns in spaces:
            api.post("/api/v1/namespaces", {"metadata": {"name": ns}})
        label = {"nsconform.io/test": "recorded"}
        rv = api.s.get(srv.url + "/api/v1/configmaps").json()["metadata"]["resourceVersion"]
        events: list[dict] = []
        watch = api.s.get(srv.url + "/api/v1/configmaps", stream=True,
                          params={"watch": "true", "resourceVersion": rv, "timeoutSeconds": "3",
                                  "labelSelector": "nsconform.io/test=recorded"})
        reader = threading.Thread(target=lambda: events.extend(json.loads(line) for line in watch.iter_lines()
                                                               if line))
        reader.start()
        rec = Recorder(api, _Paths(), _Content(), label)
        threads = [threading.Thread(target=_run_writer, args=(rec, ns, f"writer-{i}")) for i, ns in enumerate(spaces)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        reader.join()
        t0 = min(w.started for w in rec.writes)
        out = {"script": SCRIPT, "recorded": time.strftime("%Y-%m-%d"),
               "writes": [dict(asdict(w), started=round(w.started - t0, 6), acked=round(w.acked - t0, 6))
                          for w in rec.writes],
               "events": [{"type": e["type"], "key": [e["object"]["metadata"].get("namespace", ""),
                                                      e["object"]["metadata"]["name"]],
                           "rv": e["object"]["metadata"]["resourceVersion"], "state": e["object"].get("data")}
                          for e in events]}
        sys.stdout.write(_one_item_a_line(out))
    finally:
        srv.stop()


def _one_item_a_line(doc: dict) -> str:
    parts = []
    for k, v in doc.items():
        if isinstance(v, list):
            items = ",\n".join("  " + json.dumps(i) for i in v)
            parts.append(f" {json.dumps(k)}: [\n{items}\n ]")
        else:
            parts.append(f" {json.dumps(k)}: {json.dumps(v)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":
    main()
