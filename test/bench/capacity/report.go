package capacity

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// HasProblems tells whether any run went wrong.
func (r *Report) HasProblems() bool {
	for _, run := range r.Runs {
		if len(run.Problems) > 0 {
			return true
		}
	}
	return false
}

// Markdown is capacity.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("# Storage capacity tracking under moving capacity\n\n")
	b.WriteString(bench.RanLine(r.Invocation, r.Options.Quick, r.Started, r.Duration))
	r.writeSetup(&b)
	r.writeGoals(&b)
	r.writeFast(&b)
	r.writeQuiet(&b)
	r.writeMoving(&b)
	r.writeRSS(&b)
	r.writeProblems(&b)
	return b.String()
}

func (r *Report) writeSetup(b *strings.Builder) {
	o := r.Options
	fmt.Fprintf(b, "## Setup\n\n")
	fmt.Fprintf(b, "- %s nodes: Node and CSINode objects naming the mock driver with its topology key, no kubelets; %d WaitForFirstConsumer classes, each of a pool of its own on every node: %s CSIStorageCapacity objects.\n",
		bench.Thousands(o.Nodes), len(o.Classes), bench.Thousands(o.objects()))
	fmt.Fprintf(b, "- Every class has two pending claims in namespace `%s`, no pod using them: one of its largest request and one of a tenth of it.\n", bench.ClaimNamespace)
	t := bench.Table{Header: []string{"class", "pool", "size per node", "largest request"}, Right: bench.RightFrom(2, 4)}
	for _, c := range o.Classes {
		t.Add(c.Name, c.Pool, gibText(c.PoolSize), gibText(c.LargestRequest))
	}
	b.WriteString("\n")
	t.Write(b)
	fmt.Fprintf(b, "- Sidecar flags of every phase: `%s --enable-capacity --capacity-poll-interval=%s`, its Pod owned by a StatefulSet (the default `--capacity-ownerref-level=1`), under the shipped RBAC and `rbac-capacity.yaml` (a superset of upstream's capacity rules). One sidecar runs at a time.\n",
		strings.Join(o.SidecarArgs, " "), o.PollInterval)
	fmt.Fprintf(b, "- Convergence and churn: one sidecar at `%s`; the driver's capacity is still. Bound: writes / %g QPS (the burst of %d would allow %.1f s less).\n",
		strings.Join((&runner{opts: o}).fastBudget(), " "), o.FastQPS, o.FastBurst, float64(o.FastBurst)/o.FastQPS)
	fmt.Fprintf(b, "- Quiet: a new sidecar at the default budget (1 QPS, burst 5: no budget flags) for %s from its start (its start-up pass and its first poll) on objects that are all current.\n", o.quietWindow())
	fmt.Fprintf(b, "- Moving: the driver restarted with `--capacity-moving-share=%g --capacity-moving-amplitude=%g --capacity-moving-period=%s --capacity-moving-seed=%d` (the free space of %s of the nodes, chosen by the seed, moves every poll interval by up to ±%s of the pool's size), then a new sidecar at the default budget for %d poll intervals.",
		o.Moving.Share, o.Moving.Amplitude, o.PollInterval, o.Moving.Seed, bench.Pct(o.Moving.Share), bench.Pct(o.Moving.Amplitude), o.MovingPolls)
	fmt.Fprintf(b, " Every %s, the relative error |published − current| / current of every object against the driver's current answer (`mockdriver.MovingCapacity`, computed here) is sampled, and an object hides a crossing while its published capacity and the driver's answer are on different sides of its class's largest request.", o.SampleEvery)
	fmt.Fprintf(b, " The backlog, the queue's depth (`workqueue_depth{name=\"%s\"}`) plus, where the sidecar has the metric (ours keeps updates apart from its queue), `%s`, is read from the sidecar's metrics one scrape at a time, every %s or %d times the last scrape's duration if that is longer: upstream gathers its capacity metrics under its controller's lock, comparing every object with every work item.\n", capacityQueue, pendingWritesMetric, o.SampleEvery, depthSpacing)
	fmt.Fprintf(b, "- Writes: the sidecar's creates, updates, patches and deletes of CSIStorageCapacity objects in the kube-apiserver audit log; successful ones unless said otherwise.\n")
	b.WriteString("- Configurations:\n")
	for _, v := range o.Variants {
		if !v.IsBaseline() && len(v.Args) == 0 && v.Binary == "" {
			// Describe would show an empty flag list: the phases set them.
			fmt.Fprintf(b, "  - %s: this repository's csi-provisioner\n", v.Name)
			continue
		}
		fmt.Fprintf(b, "  - %s\n", v.Describe())
	}
	b.WriteString("\n")
}

func (r *Report) writeGoals(b *strings.Builder) {
	b.WriteString("## Goals\n\n")
	b.WriteString("Absolute goals are judged on each configuration's worst run; the peak RSS is ours against the baseline's, medians of the runs.\n\n")
	header := []string{"goal"}
	for _, v := range r.Options.Variants {
		header = append(header, v.Name)
	}
	t := bench.Table{Header: header}
	for _, c := range absoluteGoals() {
		row := []string{c.name(r)}
		for _, v := range r.Options.Variants {
			row = append(row, verdictText(c.judge(r, r.runsOf(v.Name))))
		}
		t.Add(row...)
	}
	t.Write(b)
	if base := r.baseline(); base != nil {
		g := bench.RatioGoal("", r.MovingRSS(Ours.Name), r.MovingRSS(base.Name), true, GoalRSSVsBaseline, 1, " MiB")
		fmt.Fprintf(b, "Peak RSS of the moving phase's sidecar ≤ %.1f × the baseline's: %s.\n\n", GoalRSSVsBaseline, verdictText(g.Measured, g.Met, g.Value != nil))
	}
}

// verdictText is a goal's verdict for one configuration.
func verdictText(text string, met, measured bool) string {
	switch {
	case !measured:
		return "not measured"
	case met:
		return "met: " + text
	}
	return "**not met**: " + text
}

func (r *Report) writeFast(b *strings.Builder) {
	fmt.Fprintf(b, "## Convergence and churn at %g QPS\n\n", r.Options.FastQPS)
	b.WriteString("Convergence is timed from the sidecar's start, churn from the benchmark's first node change, each until the watch delivered the change that made every object right.\n\n")
	t := bench.Table{Header: []string{"configuration", "run", "phase", "writes", "took", "bound", "× bound", "first write after", "sidecar writes", "node changes made in"}, Right: bench.RightFrom(3, 10)}
	t.Right[1] = true
	for _, run := range r.Runs {
		for _, ph := range []struct {
			name string
			c    Convergence
		}{{"convergence", run.Convergence}, {"churn", run.Churn}} {
			if ph.c.Writes == 0 {
				continue
			}
			bound := r.bound(ph.c.Writes)
			ratio := "–"
			if ph.c.Took > 0 {
				ratio = bench.FmtRatio(ph.c.Took.Seconds() / bound.Seconds())
			}
			made := "–"
			if ph.c.ChangesMade > 0 {
				made = bench.FmtSeconds(ph.c.ChangesMade)
			}
			t.Add(run.Variant, fmt.Sprint(run.Run), ph.name, bench.Thousands(ph.c.Writes), bench.FmtSeconds(ph.c.Took), bench.FmtSeconds(bound),
				ratio, bench.FmtSeconds(ph.c.FirstWrite), bench.Thousands(ph.c.SidecarWrites), made)
		}
	}
	t.Write(b)
}

func (r *Report) writeQuiet(b *strings.Builder) {
	b.WriteString("## Quiet poll\n\n")
	t := bench.Table{Header: []string{"configuration", "run", "window", "writes", "refused write attempts"}, Right: bench.RightFrom(1, 5)}
	for _, run := range r.Runs {
		t.Add(run.Variant, fmt.Sprint(run.Run), run.Quiet.Window.String(), fmt.Sprint(run.Quiet.Writes), fmt.Sprint(run.Quiet.Refused))
	}
	t.Write(b)
}

func (r *Report) writeMoving(b *strings.Builder) {
	o := r.Options
	b.WriteString("## Moving capacity at the default budget\n\n")
	budget := int(o.PollInterval.Seconds())
	for _, run := range r.Runs {
		if run.Moving.MovingObjects > 0 {
			fmt.Fprintf(b, "%d of the %s objects change every poll; the default budget allows about %d writes a poll (1 QPS, plus a burst of 5). For at most 1%% of the objects to be stale after a poll, a controller would have to write about %d a poll: no order of writes meets the error goal at this budget. Which objects get the writes decides the crossings, and the queue's depth what the backlog costs.\n\n",
				run.Moving.MovingObjects, bench.Thousands(o.Nodes*len(o.Classes)), budget, max(0, run.Moving.MovingObjects-o.objects()/100))
			break
		}
	}
	t := bench.Table{Header: []string{"configuration", "run", "error p50", "p99", "max", "longest hidden crossing", "streaks > 2 polls", "backlog: first poll", "last poll", "max", "slowest scrape", "writes per poll (each)", "refused"}, Right: bench.RightFrom(1, 13)}
	for _, run := range r.Runs {
		m := run.Moving
		polls := m.HiddenLongest.Seconds() / o.PollInterval.Seconds()
		t.Add(run.Variant, fmt.Sprint(run.Run), pct1(m.ErrorP50), pct1(m.ErrorP99), pct1(m.ErrorMax),
			fmt.Sprintf("%.1f polls (%s)", polls, m.HiddenLongest.Round(time.Second)), fmt.Sprintf("%d of %d", m.HiddenOverLimit, m.HiddenStreaks),
			depthText(m.Depth.FirstPoll), depthText(m.Depth.LastPoll), depthText(m.Depth.Max), scrapeText(m.Depth), intsText(m.WritesPerPoll), fmt.Sprint(m.Refused))
	}
	t.Write(b)
	for _, p := range r.Plots {
		fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.File)
	}
}

func (r *Report) writeRSS(b *strings.Builder) {
	b.WriteString("## Sidecar peak RSS (VmHWM)\n\n")
	t := bench.Table{Header: []string{"configuration", "run", "convergence and churn", "quiet", "moving"}, Right: bench.RightFrom(1, 5)}
	for _, run := range r.Runs {
		row := []string{run.Variant, fmt.Sprint(run.Run)}
		for _, phase := range []string{"fast", "quiet", "moving"} {
			v := "–"
			if bytes, ok := run.PeakRSS[phase]; ok {
				v = fmt.Sprintf("%.1f MiB", measure.MiB(bytes))
			}
			row = append(row, v)
		}
		t.Add(row...)
	}
	t.Write(b)
}

func (r *Report) writeProblems(b *strings.Builder) {
	if !r.HasProblems() {
		return
	}
	b.WriteString("## Problems\n\n")
	for _, run := range r.Runs {
		for _, p := range run.Problems {
			fmt.Fprintf(b, "- %s, run %d: %s\n", run.Variant, run.Run, p)
		}
	}
	b.WriteString("\n")
}

func gibText(bytes int64) string { return fmt.Sprintf("%s GiB", bench.Thousands(int(bytes/gib))) }

func depthText(d int) string {
	if d < 0 {
		return "–"
	}
	return bench.Thousands(d)
}

// scrapeText is the slowest scrape of the metrics and how many did not
// answer.
func scrapeText(d DepthSummary) string {
	if d.Scrapes == 0 {
		return fmt.Sprintf("none of %d answered", d.FailedScrapes)
	}
	text := fmt.Sprintf("%.2f s", d.SlowestScrape.Seconds())
	if d.FailedScrapes > 0 {
		text += fmt.Sprintf(" (%d did not answer)", d.FailedScrapes)
	}
	return text
}

// intsText lists small counts, e.g. the writes of each poll.
func intsText(v []int) string {
	if len(v) == 0 {
		return "–"
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(slices.Clip(parts), ", ")
}
