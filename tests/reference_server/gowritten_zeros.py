"""Zero values kube-apiserver writes in answers where a body left fields out (wire/gowritten.py), shared by the
tests that compare whole statuses."""

# core/v1 NodeStatus: `DaemonEndpoints` and `NodeInfo` are structs held by value (`omitempty` never leaves a struct
# out), written with their fields that have no `omitempty` (`Port`, NodeSystemInfo's strings) as zero
NODE_ZEROS = {"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}},
              "nodeInfo": dict.fromkeys(("machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
                                         "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion",
                                         "operatingSystem", "architecture"), "")}
