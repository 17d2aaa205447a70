// Package measure holds the instruments that `make bench` and `make soak`
// both read csi-provisioner and its stack with: a process's resident memory
// and CPU time from /proc, the Go heap and work queues from its metrics,
// heap profiles, the kube-apiserver audit log (who sent which request, and
// when), the components' klog logs, the events the sidecar records and how
// they reach the API, medians and percentiles over runs, and the PNG files
// of the reports' plots.
package measure
