"""Spec validation of the apps/v1 and batch/v1 kinds (apps.py, batch.py, cron.py), with the Go value printing
(gofmt.py), IntOrString rules (intstr.py) and label-selector semantics (labelselector.py) they share. Pod
templates go through registry/podvalidation/."""
