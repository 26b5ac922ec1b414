"""nsconform: a conformance harness for the Kubernetes Namespace API."""

__version__ = "0.1.0"
