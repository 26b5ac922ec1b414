"""What the decode tests send and expect: the body content types, and the 400 `Status` a refused body gets."""
from __future__ import annotations

JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}


def bad_request(message: str) -> dict:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "BadRequest", "code": 400}
