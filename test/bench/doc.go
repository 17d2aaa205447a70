// Package bench is `make bench`: it runs csi-provisioner (the real binary)
// with the mock CSI driver on the local control plane of
// test/e2e/framework and measures
//   - provisioning (Run, RunScenarios): claims provisioned and deleted in a
//     burst with the ProvisioningProtection gate on and off, for a matrix of
//     sizes and client limits (scenarios.go): wall times, throughput,
//     per-claim latency, and the sidecar's API requests per volume as the
//     kube-apiserver audit log records them;
//   - memory (RunMemory): the sidecar's peak RSS and CPU time with
//     thousands of bound claims and PVs in its caches;
//   - PVC protection (RunClaimDeletion): the sidecar's controller against
//     kube-controller-manager's;
//   - the Go benchmarks of the hot paths (RunGoBenchmarks).
//
// A Baseline variant (an upstream release's binary) can join the
// provisioning and memory benchmarks; every figure of ours is then also
// reported as a ratio to its median, and the goals against it are judged.
//
// Each has its own report; Overview puts them side by side in report.md,
// with the goals and the PNG plots of DrawPlots (gonum/plot). The command
// in cmd/provisioning-bench wires them.
package bench
