package soak

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// WriteReport writes report.md, its plots and result.json (everything the
// report was made from) into dir.
func WriteReport(res *Result, dir string) error {
	data, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "result.json"), data, 0o644); err != nil {
		return err
	}
	plots, err := drawPlots(res, dir)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(reportMarkdown(res, plots)), 0o644)
}

func reportMarkdown(res *Result, plots []Plot) string {
	var b strings.Builder
	o, a := res.Options, res.Account
	fmt.Fprintf(&b, "# Soak report\n\n")
	fmt.Fprintf(&b, "Started %s. %s of churn with %d workers and a fault every %s on average (seed %d: `make soak SOAK_DURATION=%s SOAK_ARGS=--seed=%d` replays the schedule), then %s of clean-up. "+
		"Two csi-provisioner replicas with leader election, under the shipped RBAC, at the default client limits (5 QPS, burst 10), each through a proxy to kube-apiserver; the mock driver takes %s per CreateVolume and finishes a volume whose caller gave up.\n\n",
		res.Started.UTC().Format(time.RFC3339), res.Churned.Round(time.Second), o.Workers, o.FaultInterval, o.Seed, o.Duration, o.Seed, res.Settled.Round(time.Second), o.CreateDelay)

	fmt.Fprintf(&b, "## Verdict\n\n| | |\n|---|---|\n")
	settled := "yes, in " + res.Settled.Round(time.Second).String()
	if a.NotSettled != "" {
		settled = "no: " + a.NotSettled
	}
	fmt.Fprintf(&b, "| everything deleted once the churn stopped | %s |\n", settled)
	fmt.Fprintf(&b, "| leaked volumes (backend volumes no PV names) | %d |\n", len(a.Leaked))
	fmt.Fprintf(&b, "| stuck claims (deleted, still there %s later) | %d during the run, %d at the end |\n", o.StuckAfter, len(a.StuckDuringRun), len(a.ClaimsLeft))
	fmt.Fprintf(&b, "| PVs left at the end | %d |\n", len(a.PVsLeft))
	fmt.Fprintf(&b, "| volumes made twice (one name, two backend volumes) | %d |\n", len(a.Twice))
	fmt.Fprintf(&b, "| orphan audit's highest report during the run | %.0f |\n", a.OrphanedMax)
	rss, heap, gor := trendSummary(phases(res.Samples))
	fmt.Fprintf(&b, "| leader's resident memory trend (phases of %s or more after a %s warm-up) | %s |\n", minTrendSpan, warmUp, rss)
	fmt.Fprintf(&b, "| leader's Go heap in use trend (same) | %s |\n", heap)
	fmt.Fprintf(&b, "| leader's goroutine trend (same) | %s |\n\n", gor)
	for _, list := range []struct {
		title string
		items []string
	}{{"Leaked", a.Leaked}, {"Stuck during the run", a.StuckDuringRun}, {"Claims left", a.ClaimsLeft}, {"PVs left", a.PVsLeft}, {"Made twice", a.Twice}} {
		for _, item := range list.items {
			fmt.Fprintf(&b, "- %s: %s\n", list.title, item)
		}
	}

	writeChurn(&b, res)
	writeFaults(&b, res)
	writeMemory(&b, res, plots)
	fmt.Fprintf(&b, "## kube-apiserver's answers to the sidecars\n\nFrom its audit log, by response code, with the most frequent requests of each.\n\n| code | requests | most frequent |\n|---|---|---|\n")
	for _, c := range a.Responses {
		fmt.Fprintf(&b, "| %d | %d | %s |\n", c.Code, c.Count, c.Top)
	}
	fmt.Fprintf(&b, "\nThe sidecars' watches ended with 410 Gone (their resourceVersion compacted away) and listed again %d time(s).\n", a.WatchExpired)
	return b.String()
}

func writeChurn(b *strings.Builder, res *Result) {
	var clones, whenBound, bound, gone int
	for _, c := range res.Claims {
		if c.Clone {
			clones++
		}
		if c.DeleteWhenBound {
			whenBound++
		}
		if c.Bound != 0 {
			bound++
		}
		if c.Gone != 0 {
			gone++
		}
	}
	n := len(res.Claims)
	fmt.Fprintf(b, "\n## Churn\n\n| | |\n|---|---|\n")
	fmt.Fprintf(b, "| claims created and deleted | %d (%.1f a minute) |\n", n, float64(n)/max(res.Churned.Minutes(), 1e-9))
	fmt.Fprintf(b, "| of them clones | %d |\n", clones)
	fmt.Fprintf(b, "| deleted once bound / at a random moment of provisioning | %d / %d |\n", whenBound, n-whenBound)
	fmt.Fprintf(b, "| seen bound before deletion | %d |\n", bound)
	fmt.Fprintf(b, "| seen gone by the last sample | %d |\n", gone)
	fmt.Fprintf(b, "| backend volumes created / deleted (driver log) | %d / %d |\n\n", res.Account.Created, res.Account.Deleted)
}

func writeFaults(b *strings.Builder, res *Result) {
	fmt.Fprintf(b, "## Faults\n\n| fault | times | longest to heal |\n|---|---|---|\n")
	for _, kind := range faultKinds {
		count, longest := 0, time.Duration(0)
		for _, f := range res.Faults {
			if f.Kind == kind {
				count++
				longest = max(longest, f.Healed)
			}
		}
		fmt.Fprintf(b, "| %s | %d | %s |\n", kind, count, longest.Round(100*time.Millisecond))
	}
	fmt.Fprintf(b, "\nThe sidecars also run throttled throughout (client-side rate limits at their defaults).\n\n<details><summary>Each fault</summary>\n\n| at | fault | detail | healed in | error |\n|---|---|---|---|---|\n")
	for _, f := range res.Faults {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", f.At.Round(time.Second), f.Kind, f.Detail, f.Healed.Round(100*time.Millisecond), f.Error)
	}
	fmt.Fprintf(b, "\n</details>\n\n### Process exits\n\nEvery exit was followed by a restart %s later, as a kubelet would.\n\n| process | cause | times |\n|---|---|---|\n", restartDelay)
	counts := map[[2]string]int{}
	for _, e := range res.Exits {
		counts[[2]string{e.Process, e.Cause}]++
	}
	keys := make([][2]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y [2]string) int { return strings.Compare(x[0]+x[1], y[0]+y[1]) })
	for _, k := range keys {
		fmt.Fprintf(b, "| %s | %s | %d |\n", k[0], k[1], counts[k])
	}
	b.WriteString("\n")
}

func writeMemory(b *strings.Builder, res *Result, plots []Plot) {
	fmt.Fprintf(b, "## Memory and goroutines\n\nEach replica's process in one role (leader or standby) between two changes, sampled every %s; the trend is a least-squares fit over the samples after the phase's first %s. The Go heap in use also counts garbage not yet collected; RSS adds the runtime's slack. Every %s each replica's heap profile is saved in `profiles/` (`go tool pprof -top -diff_base=<earlier> <later>`) after a forced GC, and the heap allocated right after it is the live heap: what the process keeps, without garbage.\n\n", res.Options.SampleInterval, warmUp, profileEvery)
	fmt.Fprintf(b, "| replica | pid | role | from | to | RSS (MiB) first → last | RSS trend (MiB/h) | heap in use (MiB) first → last | heap trend (MiB/h) | live heap after GC (MiB), each reading | goroutines first → last | goroutine trend (/h) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range phases(res.Samples) {
		if !p.Trend {
			continue
		}
		fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %.1f → %.1f | %+.1f | %.1f → %.1f | %+.1f | %s | %.0f → %.0f | %+.1f |\n", p.Replica, p.Pid, role(p.Leader), p.From.Round(time.Second), p.To.Round(time.Second),
			mib(float64(p.RSSFirst)), mib(float64(p.RSSLast)), mib(p.RSSSlopePerHour), mib(p.HeapFirst), mib(p.HeapLast), mib(p.HeapSlopePerHour),
			liveHeaps(p.LiveHeaps), p.GoroutinesFirst, p.GoroutinesLast, p.GoroutinesSlopePerHour)
	}
	fmt.Fprintf(b, "\nShorter phases are in result.json and the plots.\n\n")
	for _, p := range plots {
		fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.File)
	}
}

func liveHeaps(values []float64) string {
	if len(values) == 0 {
		return "none"
	}
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = fmt.Sprintf("%.1f", mib(v))
	}
	return strings.Join(parts, ", ")
}

func role(leader bool) string {
	if leader {
		return "leader"
	}
	return "standby"
}

// trendSummary says the steepest RSS, heap and goroutine trends of the
// leader phases long enough to have one: the standby only watches.
func trendSummary(all []Phase) (rss, heap, goroutines string) {
	n := 0
	var maxRSS, maxHeap, maxG float64
	for _, p := range all {
		if !p.Trend || !p.Leader {
			continue
		}
		n++
		maxRSS = steeper(maxRSS, p.RSSSlopePerHour)
		maxHeap = steeper(maxHeap, p.HeapSlopePerHour)
		maxG = steeper(maxG, p.GoroutinesSlopePerHour)
	}
	if n == 0 {
		none := "no leader phase long enough"
		return none, none, none
	}
	return fmt.Sprintf("steepest of %d: %+.1f MiB/h", n, mib(maxRSS)), fmt.Sprintf("steepest of %d: %+.1f MiB/h", n, mib(maxHeap)), fmt.Sprintf("steepest of %d: %+.1f goroutines/h", n, maxG)
}

func steeper(a, b float64) float64 {
	if abs(b) > abs(a) {
		return b
	}
	return a
}

func mib(b float64) float64 { return b / (1 << 20) }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
