// Package memory measures the sidecar's memory and CPU with tens of
// thousands of bound claims and PVs in its caches. One control plane is
// filled with the pairs, written as csi-provisioner and the PV binder leave
// them, and grown from one size to the next (10,000, 25,000, 50,000); at
// each size every run starts a fresh sidecar of one variant on it and
// reads, from /proc and its metrics, its CPU time until its caches synced
// and it went idle, the time until a claim created at its start was Bound,
// its peak RSS (VmHWM) and RSS after provisioning and deleting a batch of
// claims, and its Go heap. Each variant's peak RSS is fitted with a line
// over the sizes (KiB per cached pair); at the largest size the shipped
// settings run again under ever smaller memory limits, hard ones where the
// machine allows, with GOMEMLIMIT to match, to find the smallest that
// holds.
// The figures are judged against a budget, the slope goal and, when an
// upstream release runs as the baseline, against its figures.
package memory
