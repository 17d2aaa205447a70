package soak

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
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
	all := phases(res.Samples)
	growth := leaderHeapGrowth(dir, all, 3)
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(reportMarkdown(res, plots, all, growth)), 0o644)
}

// RewriteReport writes the report of the run in dir again, from its
// result.json and its logs: for a run made before the report changed.
func RewriteReport(dir string) (*Result, error) {
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return nil, err
	}
	var res Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "result.json"), err)
	}
	if res.Logs.AuditLog == "" {
		return nil, fmt.Errorf("%s names no logs to read", filepath.Join(dir, "result.json"))
	}
	if err := res.Account.readLogs(dir, res.Logs); err != nil {
		return nil, err
	}
	return &res, WriteReport(&res, dir)
}

func reportMarkdown(res *Result, plots []measure.Plot, all []Phase, growth []PhaseGrowth) string {
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
	for _, line := range eventGoals(a.Events) {
		fmt.Fprintf(&b, "| %s | %s |\n", line[0], line[1])
	}
	whole := trendSummary(all, func(p Phase) bool { return p.Trend }, func(p Phase) [3]float64 {
		return [3]float64{p.RSSSlopePerHour, p.HeapSlopePerHour, p.GoroutinesSlopePerHour}
	})
	late := trendSummary(all, func(p Phase) bool { return p.Halves }, func(p Phase) [3]float64 {
		return [3]float64{p.RSSLateSlopePerHour, p.HeapLateSlopePerHour, p.GoroutinesLateSlopePerHour}
	})
	fmt.Fprintf(&b, "| leader's resident memory trend (phases of %s or more after a %s warm-up) | %s |\n", minTrendSpan, warmUp, whole[0])
	fmt.Fprintf(&b, "| leader's Go heap in use trend (same) | %s |\n", whole[1])
	fmt.Fprintf(&b, "| leader's goroutine trend (same) | %s |\n", whole[2])
	fmt.Fprintf(&b, "| leader's resident memory trend over the second half of phases of %s or more | %s |\n", minHalvesSpan, late[0])
	fmt.Fprintf(&b, "| leader's Go heap in use trend (same) | %s |\n", late[1])
	fmt.Fprintf(&b, "| leader's goroutine trend (same) | %s |\n\n", late[2])
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
	writeMemory(&b, res, plots, all, growth)
	writeEvents(&b, a.Events, len(res.Claims))
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

func writeMemory(b *strings.Builder, res *Result, plots []measure.Plot, all []Phase, growth []PhaseGrowth) {
	fmt.Fprintf(b, "## Memory and goroutines\n\nEach replica's process in one role (leader or standby) between two changes, sampled every %s; the trend is a least-squares fit over the samples after the phase's first %s. The Go heap in use also counts garbage not yet collected; RSS adds the runtime's slack. Every %s each replica's heap profile is saved in `profiles/` (`go tool pprof -top -diff_base=<earlier> <later>`) after a forced GC, and the heap allocated right after it is the live heap: what the process keeps, without garbage.\n\n", res.Options.SampleInterval, warmUp, profileEvery)
	fmt.Fprintf(b, "| replica | pid | role | from | to | RSS (MiB) first → last | RSS trend (MiB/h) | heap in use (MiB) first → last | heap trend (MiB/h) | live heap after GC (MiB), each reading | goroutines first → last | goroutine trend (/h) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range all {
		if !p.Trend {
			continue
		}
		fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %.1f → %.1f | %+.1f | %.1f → %.1f | %+.1f | %s | %.0f → %.0f | %+.1f |\n", p.Replica, p.Pid, role(p.Leader), p.From.Round(time.Second), p.To.Round(time.Second),
			measure.MiB(float64(p.RSSFirst)), measure.MiB(float64(p.RSSLast)), measure.MiB(p.RSSSlopePerHour), measure.MiB(p.HeapFirst), measure.MiB(p.HeapLast), measure.MiB(p.HeapSlopePerHour),
			liveHeaps(p.LiveHeaps), p.GoroutinesFirst, p.GoroutinesLast, p.GoroutinesSlopePerHour)
	}
	fmt.Fprintf(b, "\nShorter phases are in result.json and the plots.\n\n")
	if len(growth) > 0 {
		fmt.Fprintf(b, "What grew in each leader's heap between its first and last profile after warm-up, by allocation site (the innermost function outside the runtime and the standard library's helpers; one sample per 512 KiB allocated, so below about 1 MiB is noise):\n\n| replica | pid | profiles | live heap (MiB) first → last | grew most (MiB) |\n|---|---|---|---|---|\n")
		for _, g := range growth {
			p := g.Phase
			fmt.Fprintf(b, "| %d | %d | %s → %s | %.1f → %.1f | %s |\n", p.Replica, p.Pid, p.FirstProfile, p.LastProfile, measure.MiB(p.LiveHeaps[0]), measure.MiB(p.LiveHeaps[len(p.LiveHeaps)-1]), sitesGrown(g))
		}
		b.WriteString("\n")
	}
	var long []Phase
	for _, p := range all {
		if p.Halves {
			long = append(long, p)
		}
	}
	if len(long) > 0 {
		fmt.Fprintf(b, "Phases of %s or more after warm-up, trend over the second half of their samples: a queue or cache with a bound grows until full and then stays flat, where a leak keeps its slope.\n\n| replica | pid | role | from | to | RSS trend (MiB/h) whole / second half | heap trend (MiB/h) whole / second half | goroutine trend (/h) whole / second half |\n|---|---|---|---|---|---|---|---|\n", minHalvesSpan)
		for _, p := range long {
			fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %+.1f / %+.1f | %+.1f / %+.1f | %+.1f / %+.1f |\n", p.Replica, p.Pid, role(p.Leader), p.From.Round(time.Second), p.To.Round(time.Second),
				measure.MiB(p.RSSSlopePerHour), measure.MiB(p.RSSLateSlopePerHour), measure.MiB(p.HeapSlopePerHour), measure.MiB(p.HeapLateSlopePerHour), p.GoroutinesSlopePerHour, p.GoroutinesLateSlopePerHour)
		}
		b.WriteString("\n")
	}
	for _, p := range plots {
		fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.File)
	}
}

// The events goal: what a user reads with kubectl describe is there, and
// in time to matter.
const (
	eventGoalShare = 0.99
	eventGoalP99   = 10 * time.Second
)

// eventGoals are the verdict's lines of the events goal.
func eventGoals(e measure.EventWrites) [][2]string {
	if e.Distinct == 0 {
		return [][2]string{{"distinct events written (goal: at least 99%)", "not measured (no events listed at the end of this run)"}}
	}
	verdict := func(met bool) string {
		if met {
			return "met"
		}
		return "not met"
	}
	share := e.WrittenShare()
	return [][2]string{
		{"distinct events written, by object, reason and message (goal: at least 99%)",
			fmt.Sprintf("%.1f%% (%d of %d): %s", 100*share, e.DistinctWritten, e.Distinct, verdict(share >= eventGoalShare))},
		{fmt.Sprintf("events' wait from recorded to written, 99th percentile (goal: at most %s)", eventGoalP99),
			fmt.Sprintf("%s: %s", e.DelayP99.Round(100*time.Millisecond), verdict(e.DelayP99 <= eventGoalP99))},
	}
}

func writeEvents(b *strings.Builder, e measure.EventWrites, claims int) {
	fmt.Fprintf(b, "## The sidecars' events\n\nclient-go queues each recorded event, up to 1,000, and writes them one at a time through the sidecar's events client, whose rate limit is its own (`--kube-api-events-qps`, `-burst`); what does not fit is dropped, and repeats are counted into an earlier event. The queue is part of the leader's heap while it fills.\n\n| | |\n|---|---|\n")
	fmt.Fprintf(b, "| recorded (the sidecars' logs) | %d |\n", e.Recorded)
	fmt.Fprintf(b, "| written: created / counted into an earlier event | %d / %d |\n", e.Created, e.Counted)
	if claims > 0 {
		fmt.Fprintf(b, "| event writes per claim made | %.2f |\n", float64(e.Created+e.Counted)/float64(claims))
	}
	fmt.Fprintf(b, "| never written (dropped from a full queue, or queued when a sidecar was killed) | %d |\n", e.Unwritten())
	if e.Distinct > 0 {
		fmt.Fprintf(b, "| distinct (object, reason, message): recorded / held by kube-apiserver at the end | %d / %d |\n", e.Distinct, e.DistinctWritten)
	}
	fmt.Fprintf(b, "| from recorded to written (created ones): median / 90th / 99th percentile / max | %s / %s / %s / %s |\n\n",
		e.DelayMedian.Round(100*time.Millisecond), e.DelayP90.Round(100*time.Millisecond), e.DelayP99.Round(100*time.Millisecond), e.DelayMax.Round(100*time.Millisecond))
}

func sitesGrown(g PhaseGrowth) string {
	if g.Err != nil {
		return "profiles unreadable: " + g.Err.Error()
	}
	if len(g.Sites) == 0 {
		return "nothing"
	}
	parts := make([]string, len(g.Sites))
	for i, s := range g.Sites {
		parts[i] = fmt.Sprintf("`%s` %+.1f", s.Function, measure.MiB(float64(s.Bytes)))
	}
	return strings.Join(parts, ", ")
}

func liveHeaps(values []float64) string {
	if len(values) == 0 {
		return "none"
	}
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = fmt.Sprintf("%.1f", measure.MiB(v))
	}
	return strings.Join(parts, ", ")
}

func role(leader bool) string {
	if leader {
		return "leader"
	}
	return "standby"
}

// trendSummary says the steepest RSS, heap and goroutine trends (in that
// order, as slopes gives them) of the leader phases that have them: the
// standby only watches.
func trendSummary(all []Phase, has func(Phase) bool, slopes func(Phase) [3]float64) [3]string {
	n := 0
	var steepest [3]float64
	for _, p := range all {
		if !p.Leader || !has(p) {
			continue
		}
		n++
		for i, v := range slopes(p) {
			steepest[i] = steeper(steepest[i], v)
		}
	}
	if n == 0 {
		none := "no leader phase long enough"
		return [3]string{none, none, none}
	}
	return [3]string{
		fmt.Sprintf("steepest of %d: %+.1f MiB/h", n, measure.MiB(steepest[0])),
		fmt.Sprintf("steepest of %d: %+.1f MiB/h", n, measure.MiB(steepest[1])),
		fmt.Sprintf("steepest of %d: %+.1f goroutines/h", n, steepest[2]),
	}
}

func steeper(a, b float64) float64 {
	if math.Abs(b) > math.Abs(a) {
		return b
	}
	return a
}
