// Package provisioning measures how fast csi-provisioner provisions and
// deletes a burst of claims, with the ProvisioningProtection gate on and
// off (and an upstream release as the baseline, if given), for a matrix of
// sizes and client limits (Scenario). Each run starts a fresh stack of
// test/e2e/framework, provisions one warm-up claim, then creates every
// claim at once and deletes them all, and measures: wall times and
// throughput; each claim's latency from create to Bound, split into the PV
// binder's hand-over, the sidecar's part and the binding; the sidecar's API
// requests per volume and its non-2xx answers, from the kube-apiserver
// audit log; the events it recorded and the driver's calls, from their
// logs; and the CPU every component used. The report package writes what
// it found.
package provisioning
