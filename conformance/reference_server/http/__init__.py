"""The http layer: aiohttp app, routing, decoding, watch, discovery; hooks into `wire`."""
from .app import build_app
from .context import ServerContext
from .decode import decode_body
from .router import PROFILES, Router

__all__ = ["PROFILES", "Router", "ServerContext", "build_app", "decode_body"]
