package gobench

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench/benchtest"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// goBenchSample is go test -bench -benchmem -count 2 output: a package
// with a benchmark that fails, a sub-benchmark whose name ends in digits
// and a result line cut by a log line; one reporting MB/s and logging; a
// package with tests but no benchmark, one without tests, and one that
// does not build.
const goBenchSample = `goos: linux
goarch: amd64
pkg: github.com/csi-protect/external-provisioner/pkg/controller
cpu: Intel(R) Xeon(R) Processor
BenchmarkProtectionSync/no-write/awaiting-bind-2         	 1000000	      1169 ns/op	     200 B/op	       7 allocs/op
BenchmarkProtectionSync/no-write/awaiting-bind-2         	 1000000	      1103 ns/op	     200 B/op	       7 allocs/op
BenchmarkProtectionSync/remove-finalizer/bound-2         	   71878	      7610 ns/op	    3162 B/op	      32 allocs/op
BenchmarkProtectionSync/remove-finalizer/bound-2         	   70012	      7702 ns/op	    3163 B/op	      32 allocs/op
--- FAIL: BenchmarkBroken
    bench_test.go:40: boom
BenchmarkSub/replicas-3-2  	84540739	         0.9797 ns/op	       0 B/op	       0 allocs/op
BenchmarkSub/replicas-3-2  	100000000	         0.8846 ns/op	       0 B/op	       0 allocs/op
BenchmarkCut-2   	I1121 11:47:40.123456   12345 sync.go:42] a log line in the middle
FAIL
exit status 1
FAIL	github.com/csi-protect/external-provisioner/pkg/controller	4.514s
goos: linux
goarch: amd64
pkg: github.com/csi-protect/external-provisioner/pkg/localvolume/devices
cpu: Intel(R) Xeon(R) Processor
BenchmarkParseLsblk64-2   	    1851	    361531 ns/op	  57.97 MB/s	   74216 B/op	     579 allocs/op
--- BENCH: BenchmarkParseLsblk64-2
    lsblk_test.go:220: parsed 64 devices
BenchmarkParseLsblk64-2   	    1900	   1361531 ns/op	  59.01 MB/s	   74216 B/op	     579 allocs/op
PASS
ok  	github.com/csi-protect/external-provisioner/pkg/localvolume/devices	2.120s
PASS
ok  	github.com/csi-protect/external-provisioner/pkg/finalizer	0.010s
?   	github.com/csi-protect/external-provisioner/pkg/features	[no test files]
# github.com/csi-protect/external-provisioner/pkg/pvprotection [github.com/csi-protect/external-provisioner/pkg/pvprotection.test]
pkg/pvprotection/bench_test.go:12:2: undefined: nope
FAIL	github.com/csi-protect/external-provisioner/pkg/pvprotection [build failed]
goos: linux
goarch: amd64
pkg: github.com/csi-protect/external-provisioner/pkg/controller/parameters
cpu: Intel(R) Xeon(R) Processor
BenchmarkParse-2       	  207918	      2668 ns/op	    1112 B/op	       5 allocs/op
PASS
ok  	github.com/csi-protect/external-provisioner/pkg/controller/parameters	0.912s
FAIL
`

func TestParseGoBench(t *testing.T) {
	res := parseGoBench(strings.NewReader(goBenchSample))
	if res.GOOS != "linux" || res.GOARCH != "amd64" || res.CPU != "Intel(R) Xeon(R) Processor" {
		t.Errorf("header: %s/%s %q", res.GOOS, res.GOARCH, res.CPU)
	}
	var names []string
	for _, r := range res.Results {
		names = append(names, shortPkg(r.Package)+" "+r.Name)
	}
	want := []string{
		"pkg/controller BenchmarkProtectionSync/no-write/awaiting-bind",
		"pkg/controller BenchmarkProtectionSync/remove-finalizer/bound",
		"pkg/controller BenchmarkSub/replicas-3",
		"pkg/localvolume/devices BenchmarkParseLsblk64",
		"pkg/controller/parameters BenchmarkParse",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("benchmarks:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}

	sync := res.Results[1]
	if sync.Procs != 2 || !slices.Equal(sync.Iterations, []int64{71878, 70012}) {
		t.Errorf("procs %d, iterations %v", sync.Procs, sync.Iterations)
	}
	if got := sync.Spread("ns/op"); got != (measure.Spread{Median: 7656, Min: 7610, Max: 7702, N: 2}) {
		t.Errorf("ns/op %+v", got)
	}
	if got := sync.Spread("allocs/op"); got.Median != 32 || got.N != 2 {
		t.Errorf("allocs/op %+v", got)
	}
	if got := sync.Spread("MB/s"); !math.IsNaN(got.Median) {
		t.Errorf("a unit the benchmark did not report: %+v", got)
	}
	lsblk := res.Results[3]
	if got := lsblk.Samples["MB/s"]; !slices.Equal(got, []float64{57.97, 59.01}) {
		t.Errorf("MB/s %v", got)
	}
	if got := lsblk.Spread("B/op"); got.Median != 74216 || got.N != 2 {
		t.Errorf("B/op after a MB/s column: %+v", got)
	}

	wantFailures := []string{
		"pkg/controller: BenchmarkBroken failed",
		"pkg/pvprotection: go test failed [build failed]",
	}
	if !slices.Equal(res.Failures, wantFailures) || !res.HasProblems() {
		t.Errorf("failures %q, want %q", res.Failures, wantFailures)
	}
	wantEmpty := []string{
		"github.com/csi-protect/external-provisioner/pkg/finalizer",
		"github.com/csi-protect/external-provisioner/pkg/features",
	}
	if !slices.Equal(res.Empty, wantEmpty) {
		t.Errorf("empty %q, want %q", res.Empty, wantEmpty)
	}
	// The report goes into results.json: nothing may be NaN.
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("JSON: %v", err)
	}
}

func TestParseGoBenchPackageFailureWithoutFailLine(t *testing.T) {
	out := "goos: linux\npkg: example.com/a\nBenchmarkA-4 \t 10\t 5 ns/op\npanic: boom\nFAIL\texample.com/a\t0.1s\n"
	res := parseGoBench(strings.NewReader(out))
	if len(res.Results) != 1 || res.Results[0].Procs != 4 {
		t.Fatalf("results %+v", res.Results)
	}
	if want := []string{"example.com/a: go test failed 0.1s"}; !slices.Equal(res.Failures, want) {
		t.Errorf("failures %q, want %q", res.Failures, want)
	}
}

func TestGoBenchmarksMarkdown(t *testing.T) {
	res := parseGoBench(strings.NewReader(goBenchSample))
	res.Command, res.Count, res.RawOutput = "go test -run '^$' -bench . -benchmem -count 2 ./pkg/controller", 2, "go-bench.txt"
	md := res.Markdown()
	benchtest.MustContain(t, "markdown", md,
		"## Go benchmarks (hot paths)\n",
		"`go test -run '^$' -bench . -benchmem -count 2 ./pkg/controller`",
		"(output in go-bench.txt)",
		"median of 2 runs",
		"- CPU: Intel(R) Xeon(R) Processor (linux/amd64, GOMAXPROCS 2)",
		"**Failed:** pkg/controller: BenchmarkBroken failed",
		"| package | benchmark | time/op | B/op | allocs/op | reported by the benchmark |\n|---|---|---:|---:|---:|---:|\n",
		"| pkg/controller | BenchmarkProtectionSync/no-write/awaiting-bind | 1.14 µs (1.10–1.17) | 200 | 7 | – |",
		"| pkg/controller | BenchmarkProtectionSync/remove-finalizer/bound | 7.66 µs (7.61–7.70) | 3162 (3162–3163) | 32 | – |",
		"| pkg/controller | BenchmarkSub/replicas-3 | 0.93 ns (0.88–0.98) | 0 | 0 | – |",
		"| pkg/localvolume/devices | BenchmarkParseLsblk64 | 862 µs (362–1362) | 74216 | 579 | 58.49 MB/s (57.97–59.01) |",
		"| pkg/controller/parameters | BenchmarkParse | 2.67 µs | 1112 | 5 | – |",
		"No benchmark result from pkg/finalizer, pkg/features.",
	)
}

func TestFmtTimePerOp(t *testing.T) {
	for _, tc := range []struct {
		ns   float64
		want string
	}{
		{25.18, "25.2 ns"}, {962.2, "962 ns"}, {2668, "2.67 µs"}, {12879, "12.9 µs"},
		{361531, "362 µs"}, {1.5e6, "1.50 ms"}, {2.5e9, "2.50 s"},
	} {
		if got := fmtTimePerOp(measure.Spread{Median: tc.ns, Min: tc.ns, Max: tc.ns, N: 1}); got != tc.want {
			t.Errorf("%v ns: %q, want %q", tc.ns, got, tc.want)
		}
	}
	if got := fmtTimePerOp(measure.SpreadOf(nil)); got != "–" {
		t.Errorf("not measured: %q", got)
	}
}

func TestGoBenchArgs(t *testing.T) {
	o := QuickOptions()
	o.Packages = []string{"./pkg/controller"}
	got := "go " + shellJoin(o.args())
	if want := "go test -run '^$' -bench . -benchmem -count 1 -benchtime 100ms ./pkg/controller"; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}
