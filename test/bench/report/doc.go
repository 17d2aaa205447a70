// Package report writes what `make bench` found: each provisioning
// scenario's report (Provisioning), with what limited its throughput and
// where the gate's extra writes come from, and report.md (Overview), which
// puts every part side by side and judges the goals: throughput with the
// gate on against off, ours against the baseline where one ran, the memory
// budget, PVC protection against kube-controller-manager's, and no errors.
// The memory, PVC protection and Go benchmark sections are their packages'
// own reports; the plots are package plots'.
package report
