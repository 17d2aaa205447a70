// Package bench measures what provisioning protection costs: it runs
// csi-provisioner (the real binary) with the mock CSI driver on the local
// control plane of test/e2e/framework, provisions and deletes a batch of
// claims with the ProvisioningProtection gate on and off, and reports wall
// times, throughput, per-claim latency, and the sidecar's API requests per
// volume as the kube-apiserver audit log records them.
//
// Run computes the figures; Report.Markdown writes them up. RunMemory
// measures the sidecar's own footprint, its peak RSS and CPU time with
// thousands of bound claims and PVs in its caches (memory*.go), and
// RunClaimDeletion compares PVC protection controllers. The command in
// cmd/provisioning-bench is what `make bench` runs.
package bench
