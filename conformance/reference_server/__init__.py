"""The bundled reference server: a Kubernetes-faithful Namespace API (knows nothing of the harness).

Layers, lowest first: storage → registry → admission → http; the controller talks to the registry.
`embedded.start_embedded` runs it in a background thread; `serve.main` runs it from the command line.
"""
