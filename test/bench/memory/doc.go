// Package memory measures the sidecar's memory and CPU with thousands of
// bound claims and PVs in its caches. One control plane is filled with the
// pairs, written as csi-provisioner and the PV binder leave them; then each
// run starts a fresh sidecar of one variant on it and reads, from /proc and
// its metrics, its CPU time until its caches synced and it went idle, its
// peak RSS (VmHWM) and RSS after provisioning and deleting a batch of
// claims, and its Go heap. The figures are judged against a budget and,
// when an upstream release runs as the baseline, against its peak RSS.
package memory
