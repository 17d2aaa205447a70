// Package bench is what the parts of `make bench` share: the sidecar
// variants they compare (the ProvisioningProtection gate on and off, and an
// upstream release as the baseline), the client limits they run with, the
// benchmark's own client and the claims it makes, where and how the
// benchmark ran, the goals it is judged by, and the markdown tables of the
// reports. It measures nothing itself. The parts are packages of their own:
//   - provisioning: throughput, latency and API requests per volume of a
//     burst of claims, for a matrix of sizes and client limits;
//   - memory: the sidecar's peak RSS and CPU with thousands of bound claims
//     and PVs in its caches;
//   - claimdeletion: the sidecar's PVC protection against
//     kube-controller-manager's;
//   - gobench: the Go benchmarks of the hot paths;
//
// report writes each provisioning scenario's report and report.md, the
// overview of them all with the goals, and plots draws its PNGs. The
// instruments they read the stack with, shared with `make soak`, are in
// internal/measure. cmd/provisioning-bench wires them.
package bench
