package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// GoBenchPackages are the packages with Go benchmarks of the sidecar's hot
// paths, relative to the repository root.
var GoBenchPackages = []string{
	"./cmd/csi-provisioner",       // the informer transform
	"./pkg/controller",            // Provision and the CreateVolume request
	"./pkg/claimprotection",       // claim protection sync
	"./pkg/controller/parameters", // StorageClass parameters and secret templates
	"./pkg/pvcprotection",         // PVC protection sync
	"./pkg/pvprotection",          // PV protection sync
	"./pkg/localvolume/devices",   // the local volume agent's lsblk parsing
	"./internal/cmdutil",          // what the event recorder keeps
}

// GoBenchOptions say how to run the Go benchmarks.
type GoBenchOptions struct {
	Packages []string
	// Count is go test's -count: each benchmark's runs, for the spread.
	Count int
	// Benchtime is go test's -benchtime; empty for its default, 1s.
	Benchtime string
	// RawOutput is the file for go test's output; empty keeps none.
	RawOutput string
	// Progress receives go test's output as it comes; nil discards it.
	Progress io.Writer
}

// DefaultGoBenchOptions fit the full `make bench`: about a minute on two
// cores, compilation included, with three runs for the spread.
func DefaultGoBenchOptions() GoBenchOptions {
	return GoBenchOptions{Packages: GoBenchPackages, Count: 3, Benchtime: "300ms"}
}

// QuickGoBenchOptions check that every benchmark runs: one short run each,
// so that compilation is most of the time.
func QuickGoBenchOptions() GoBenchOptions {
	return GoBenchOptions{Packages: GoBenchPackages, Count: 1, Benchtime: "100ms"}
}

func (o GoBenchOptions) args() []string {
	args := []string{"test", "-run", "^$", "-bench", ".", "-benchmem", "-count", strconv.Itoa(max(o.Count, 1))}
	if o.Benchtime != "" {
		args = append(args, "-benchtime", o.Benchtime)
	}
	return append(args, o.Packages...)
}

// GoBenchmarks are the parsed results of a go test -bench run.
type GoBenchmarks struct {
	// Command is the go test command line, run from the repository root.
	Command   string         `json:"command"`
	Count     int            `json:"count"`
	RawOutput string         `json:"rawOutput,omitempty"`
	Duration  time.Duration  `json:"duration"`
	GOOS      string         `json:"goos"`
	GOARCH    string         `json:"goarch"`
	CPU       string         `json:"cpu"`
	Results   []*GoBenchmark `json:"results"`
	// Empty are the packages that ran without a benchmark result.
	Empty []string `json:"empty,omitempty"`
	// Failures are the benchmarks and packages that failed.
	Failures []string `json:"failures,omitempty"`
}

// GoBenchmark is one benchmark over its runs.
type GoBenchmark struct {
	Package string `json:"package"`
	// Name is the benchmark's name without the GOMAXPROCS suffix.
	Name  string `json:"name"`
	Procs int    `json:"procs,omitempty"`
	// Iterations and Samples have one entry per run; Samples are keyed by
	// unit: ns/op, B/op, allocs/op and any the benchmark reports itself.
	Iterations []int64              `json:"iterations"`
	Samples    map[string][]float64 `json:"samples"`
	// Summary is the median (min–max) of each unit's samples.
	Summary map[string]Spread `json:"summary"`
}

// Spread of one unit; NaN when the benchmark did not report it.
func (g *GoBenchmark) Spread(unit string) Spread {
	if s, ok := g.Summary[unit]; ok {
		return s
	}
	return spreadOf(nil)
}

// standardUnits are what go test -benchmem reports for every benchmark.
var standardUnits = []string{"ns/op", "B/op", "allocs/op"}

// reported lists the units the benchmark reported itself (b.SetBytes,
// b.ReportMetric), e.g. "58.49 MB/s (57.97–59.01)", or "–".
func (g *GoBenchmark) reported() string {
	var units []string
	for unit := range g.Summary {
		if !slices.Contains(standardUnits, unit) {
			units = append(units, unit)
		}
	}
	if len(units) == 0 {
		return "–"
	}
	slices.Sort(units)
	parts := make([]string, len(units))
	for i, unit := range units {
		parts[i] = fmtSpread(g.Summary[unit], 2, " "+unit)
	}
	return strings.Join(parts, ", ")
}

// HasProblems tells whether a benchmark or a package failed.
func (g *GoBenchmarks) HasProblems() bool { return len(g.Failures) > 0 }

// RunGoBenchmarks runs go test -bench from the repository root and parses
// its output. A failing benchmark or package gives the results of the
// others along with an error.
func RunGoBenchmarks(ctx context.Context, opts GoBenchOptions) (*GoBenchmarks, error) {
	if len(opts.Packages) == 0 {
		opts.Packages = GoBenchPackages
	}
	root, err := framework.RepoRoot()
	if err != nil {
		return nil, err
	}
	args := opts.args()
	var out bytes.Buffer
	writers := []io.Writer{&out}
	if opts.RawOutput != "" {
		f, err := os.Create(opts.RawOutput)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		writers = append(writers, f)
	}
	if opts.Progress != nil {
		writers = append(writers, opts.Progress)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Stdout = io.MultiWriter(writers...)
	cmd.Stderr = cmd.Stdout
	// A group of its own, so that cancelling stops the test binaries go
	// test started too, and Ctrl-C reaches it only through ctx.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	runErr := cmd.Run()

	res := parseGoBench(&out)
	res.Command = "go " + shellJoin(args)
	res.Count = max(opts.Count, 1)
	res.Duration = time.Since(start)
	if opts.RawOutput != "" {
		res.RawOutput = filepath.Base(opts.RawOutput)
	}
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("go benchmarks stopped: %w", context.Cause(ctx))
	case runErr != nil:
		if len(res.Failures) == 0 {
			res.Failures = append(res.Failures, "go test: "+runErr.Error())
		}
		return res, fmt.Errorf("go test failed (%v): %s", runErr, strings.Join(res.Failures, "; "))
	case len(res.Results) == 0:
		return res, errors.New("go test ran no benchmark")
	}
	return res, nil
}

// shellJoin quotes the arguments that need it, for a command to paste.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " ^$*?'\"\\|&;<>()[]{}") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

// parseGoBench reads the output of go test -bench over one or more
// packages: the goos/goarch/pkg/cpu headers, one line per benchmark run
// ("BenchmarkSync-2  123456  9876 ns/op  1234 B/op  12 allocs/op"), and
// the "--- FAIL", "FAIL", "ok" and "?" lines. Anything else (test logs, a
// result line broken by a log line) is skipped.
func parseGoBench(r io.Reader) *GoBenchmarks {
	res := &GoBenchmarks{}
	byKey := map[string]*GoBenchmark{}
	found := map[string]bool{}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.ContainsAny(k, " \t") {
			switch k {
			case "goos":
				res.GOOS = v
				continue
			case "goarch":
				res.GOARCH = v
				continue
			case "cpu":
				res.CPU = v
				continue
			case "pkg":
				pkg = v
				continue
			}
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case strings.HasPrefix(fields[0], "Benchmark"):
			name, procs, iters, values, ok := parseBenchLine(fields)
			if !ok {
				continue
			}
			key := pkg + "\x00" + name
			g := byKey[key]
			if g == nil {
				g = &GoBenchmark{Package: pkg, Name: name, Procs: procs, Samples: map[string][]float64{}}
				byKey[key] = g
				res.Results = append(res.Results, g)
			}
			g.Iterations = append(g.Iterations, iters)
			for unit, v := range values {
				g.Samples[unit] = append(g.Samples[unit], v)
			}
			found[pkg] = true
		case fields[0] == "---" && len(fields) >= 3 && fields[1] == "FAIL:":
			res.Failures = append(res.Failures, fmt.Sprintf("%s: %s failed", shortPkg(pkg), fields[2]))
		case (fields[0] == "FAIL" || fields[0] == "ok" || fields[0] == "?") && len(fields) >= 2:
			p := fields[1]
			if fields[0] == "FAIL" {
				// A package whose failure no "--- FAIL" line explained
				// (a build error, a panic) is reported whole.
				if !failureNamed(res.Failures, p) {
					res.Failures = append(res.Failures, fmt.Sprintf("%s: %s", shortPkg(p), strings.Join(append([]string{"go test failed"}, fields[2:]...), " ")))
				}
			} else if !found[p] {
				res.Empty = append(res.Empty, p)
			}
		}
	}
	for _, g := range res.Results {
		g.Summary = map[string]Spread{}
		for unit, v := range g.Samples {
			g.Summary[unit] = spreadOf(v)
		}
	}
	return res
}

// parseBenchLine splits a result line: the name with its GOMAXPROCS suffix,
// the iterations, then value and unit pairs.
func parseBenchLine(fields []string) (name string, procs int, iters int64, values map[string]float64, ok bool) {
	if len(fields) < 4 || len(fields)%2 != 0 {
		return "", 0, 0, nil, false
	}
	iters, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return "", 0, 0, nil, false
	}
	values = map[string]float64{}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return "", 0, 0, nil, false
		}
		values[fields[i+1]] = v
	}
	if _, ok := values["ns/op"]; !ok {
		return "", 0, 0, nil, false
	}
	// testing appends -GOMAXPROCS unless it is 1; a sub-benchmark name
	// ending in -<digits> run with GOMAXPROCS=1 would lose that part.
	name = fields[0]
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil && n > 0 {
			name, procs = name[:i], n
		}
	}
	return name, procs, iters, values, true
}

// failureNamed tells whether a failure of a benchmark of pkg is listed.
func failureNamed(failures []string, pkg string) bool {
	for _, f := range failures {
		if strings.HasPrefix(f, shortPkg(pkg)+": Benchmark") {
			return true
		}
	}
	return false
}

// shortPkg drops the module path, which every package here shares.
func shortPkg(pkg string) string {
	const module = "github.com/csi-protect/external-provisioner/"
	return strings.TrimPrefix(pkg, module)
}

// Markdown writes the section of the report.
func (g *GoBenchmarks) Markdown() string {
	var b strings.Builder
	b.WriteString("## Go benchmarks (hot paths)\n\n")
	fmt.Fprintf(&b, "`%s`, from the repository root", g.Command)
	if g.RawOutput != "" {
		fmt.Fprintf(&b, " (output in %s)", g.RawOutput)
	}
	fmt.Fprintf(&b, "; took %s, compilation included.", g.Duration.Round(time.Second))
	if g.Count > 1 {
		fmt.Fprintf(&b, " Each figure is the median of %d runs, with (min–max) when they differ.", g.Count)
	} else {
		b.WriteString(" One run each: figures to compare roughly, not to quote.")
	}
	b.WriteString("\n\n")
	if g.CPU != "" {
		procs := ""
		if len(g.Results) > 0 && g.Results[0].Procs > 0 {
			procs = fmt.Sprintf(", GOMAXPROCS %d", g.Results[0].Procs)
		}
		fmt.Fprintf(&b, "- CPU: %s (%s/%s%s)\n\n", g.CPU, g.GOOS, g.GOARCH, procs)
	}
	for _, f := range g.Failures {
		fmt.Fprintf(&b, "**Failed:** %s\n\n", f)
	}
	if len(g.Results) > 0 {
		t := table{header: []string{"package", "benchmark", "time/op", "B/op", "allocs/op", "reported by the benchmark"}, right: rightFrom(2, 6)}
		for _, r := range g.Results {
			t.add(shortPkg(r.Package), r.Name, fmtTimePerOp(r.Spread("ns/op")),
				fmtSpread(r.Spread("B/op"), 0, ""), fmtSpread(r.Spread("allocs/op"), 0, ""), r.reported())
		}
		t.write(&b)
	}
	if len(g.Empty) > 0 {
		short := make([]string, len(g.Empty))
		for i, p := range g.Empty {
			short[i] = shortPkg(p)
		}
		fmt.Fprintf(&b, "No benchmark result from %s.\n\n", strings.Join(short, ", "))
	}
	return b.String()
}

// fmtTimePerOp writes nanoseconds in the unit that fits the median, to
// three significant digits.
func fmtTimePerOp(s Spread) string {
	if math.IsNaN(s.Median) {
		return fmtSpread(s, 0, "")
	}
	scale, unit := 1.0, " ns"
	switch m := math.Abs(s.Median); {
	case m >= 1e9:
		scale, unit = 1e9, " s"
	case m >= 1e6:
		scale, unit = 1e6, " ms"
	case m >= 1e3:
		scale, unit = 1e3, " µs"
	}
	scaled := Spread{Median: s.Median / scale, Min: s.Min / scale, Max: s.Max / scale, N: s.N}
	prec := 0
	switch m := math.Abs(scaled.Median); {
	case m < 10:
		prec = 2
	case m < 100:
		prec = 1
	}
	return fmtSpread(scaled, prec, unit)
}
