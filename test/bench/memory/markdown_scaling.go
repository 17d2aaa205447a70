package memory

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// writeSetup says how the cluster was filled, step by step, and what etcd
// and kube-apiserver needed to hold it.
func (r *Report) writeSetup(b *strings.Builder) {
	s := r.Setup
	fmt.Fprintf(b, "One control plane (kube-controller-manager with the PV binder and both protection controllers) and the mock driver hold the claims in namespace `%s`, each Bound to its PV of the driver as csi-provisioner and the binder leave them (StorageClass `%s`, reclaim policy Delete, the provisioner annotations and finalizers, a CSI source with a cloud-style volume handle and four volume attributes). "+
		"The cluster grows from one size to the next: at each step the benchmark writes the new pairs, four writes a pair from %d workers with kube-controller-manager stopped, then restarts it and waits until its binder has gone through every pair and is idle; then every variant runs at that size. No sidecar runs meanwhile (stack start %.1f s).\n\n",
		cachedNamespace, bench.ClassName, r.Options.FillWorkers, s.StackStart.Seconds())
	if len(s.Fills) == 0 {
		return
	}
	t := bench.Table{
		Header: []string{"pairs", "written in", "pairs/s", "other processes", "binder settled in", "Bound (claims, PVs)", "rewritten", "etcd RSS (peak)", "etcd database (in use)", "etcd keys", "kube-apiserver RSS (peak)"},
		Right:  bench.RightFrom(0, 11),
	}
	var total time.Duration
	for _, f := range s.Fills {
		total += f.Create + f.Settle
		t.Add(bench.Thousands(f.Pairs), bench.FmtSeconds(f.Create), fmt.Sprintf("%.0f", f.PairsPerSecond()), fmt.Sprintf("%.2f cores", f.OtherCores),
			bench.FmtSeconds(f.Settle), fmt.Sprintf("%d, %d", f.ClaimsBound, f.VolumesBound), fmt.Sprint(f.Rewritten),
			fmtPeak(f.Stack.Etcd.RSS, f.Stack.Etcd.PeakRSS), fmtPeak(f.Stack.EtcdDBSize, f.Stack.EtcdDBInUse), fmt.Sprint(f.Stack.EtcdKeys),
			fmtPeak(f.Stack.APIServer.RSS, f.Stack.APIServer.PeakRSS))
	}
	if e := s.End; e.Etcd.RSS > 0 || e.EtcdDBSize > 0 {
		t.Add("after the last run", "", "", "", "", "", "",
			fmtPeak(e.Etcd.RSS, e.Etcd.PeakRSS), fmtPeak(e.EtcdDBSize, e.EtcdDBInUse), fmt.Sprint(e.EtcdKeys), fmtPeak(e.APIServer.RSS, e.APIServer.PeakRSS))
	}
	t.Write(b)
	last := s.Fills[len(s.Fills)-1]
	fmt.Fprintf(b, "Filling took %.0f s in all (writing and settling). etcd runs as the e2e framework starts it, unchanged for %s pairs, with its default backend quota (%s, `etcd_server_quota_backend_bytes`): %s. Its figures are from `/proc` and its own `/metrics` on its client URL; the database file keeps the pages compaction freed (\"in use\" is the data).",
		total.Seconds(), bench.Thousands(last.Pairs), fmtMiB(last.Stack.EtcdQuota), quotaUse(max(last.Stack.EtcdDBSize, s.End.EtcdDBSize), last.Stack.EtcdQuota))
	var problems []string
	for _, f := range append(s.Fills, Fill{Stack: s.End}) {
		problems = append(problems, f.Stack.Problems...)
	}
	if len(problems) > 0 {
		fmt.Fprintf(b, " Not read: %s.", strings.Join(problems, "; "))
	}
	b.WriteString("\n\n")
}

// writeScaling is every variant's peak RSS at each size, and its line.
func (r *Report) writeScaling(b *strings.Builder) {
	sizes := r.Sizes()
	if len(sizes) < 2 {
		return
	}
	b.WriteString("### Peak RSS over the number of cached pairs\n\n")
	header := []string{"variant"}
	for _, s := range sizes {
		header = append(header, bench.Thousands(s))
	}
	header = append(header, "slope per pair", "line at 0 pairs", "R²", "residuals (median − line)")
	t := bench.Table{Header: header, Right: bench.RightFrom(1, len(header))}
	t.Right[len(header)-1] = false
	for _, v := range r.Variants {
		cells := []string{v.Name}
		for _, s := range sizes {
			cells = append(cells, bench.FmtSpread(r.PeakRSSAt(v.Name, s), 1, " MiB"))
		}
		f, ok := r.FitOf(v.Name)
		if !ok {
			t.Add(append(cells, "–", "–", "–", "–")...)
			continue
		}
		var res []string
		for _, p := range f.Points {
			res = append(res, fmt.Sprintf("%s: %+.1f MiB", bench.Thousands(p.Pairs), p.Residual))
		}
		r2 := "–"
		if !math.IsNaN(f.R2) {
			r2 = fmt.Sprintf("%.4f", f.R2)
		}
		t.Add(append(cells, fmt.Sprintf("%.2f KiB", f.KiBPerPair()), fmt.Sprintf("%.1f MiB", f.Intercept), r2, strings.Join(res, ", "))...)
	}
	t.Write(b)
	b.WriteString("Peak RSS is the median of the runs at each size, (min–max) when they differ. The line is the least-squares fit through those medians (a pair is one claim and its PV); R² near 1 and small residuals mean the growth is linear in the pairs cached, and the line at 0 pairs is what the sidecar needs without them.\n\n")
}

// fmtPeak writes "now (peak)" sizes in MiB.
func fmtPeak(now, peak int64) string {
	if peak <= 0 {
		return fmtMiB(now)
	}
	return fmt.Sprintf("%s (%s)", fmtMiB(now), fmtMiB(peak))
}

// quotaUse says how much of etcd's quota the database took.
func quotaUse(size, quota int64) string {
	if size <= 0 || quota <= 0 {
		return "its use not read"
	}
	return fmt.Sprintf("the database took %.0f%% of it", 100*float64(size)/float64(quota))
}
