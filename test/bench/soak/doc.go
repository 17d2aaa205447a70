// Package soak runs csi-provisioner for a long time under claim churn while
// faults hit every part it depends on, and reports what that left behind:
// leaked volumes, stuck claims, volumes made twice, and how the sidecar's
// memory and goroutines moved. `make soak` runs it (cmd/soak).
package soak
