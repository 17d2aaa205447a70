package gobench

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// parseGoBench reads the output of go test -bench over one or more
// packages: the goos/goarch/pkg/cpu headers, one line per benchmark run
// ("BenchmarkSync-2  123456  9876 ns/op  1234 B/op  12 allocs/op"), and
// the "--- FAIL", "FAIL", "ok" and "?" lines. Anything else (test logs, a
// result line broken by a log line) is skipped.
func parseGoBench(r io.Reader) *Results {
	res := &Results{}
	byKey := map[string]*Benchmark{}
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
				g = &Benchmark{Package: pkg, Name: name, Procs: procs, Samples: map[string][]float64{}}
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
		g.Summary = map[string]measure.Spread{}
		for unit, v := range g.Samples {
			g.Summary[unit] = measure.SpreadOf(v)
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
