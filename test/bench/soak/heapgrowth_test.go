package soak

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// writeHeapProfile writes a heap profile whose samples hold inuse bytes
// under call stacks, each innermost first.
func writeHeapProfile(t *testing.T, path string, stacks map[string][]string, inuse map[string]int64) {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}, {Type: "inuse_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
	}
	functions := map[string]*profile.Function{}
	for key, stack := range stacks {
		var locs []*profile.Location
		for _, name := range stack {
			fn := functions[name]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(functions) + 1), Name: name}
				functions[name] = fn
				p.Function = append(p.Function, fn)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
			p.Location = append(p.Location, loc)
			locs = append(locs, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{inuse[key] * 2, inuse[key]}})
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
}

// Growth is counted per allocation site, the first frame past the
// runtime's and the standard library's helpers, most first, and a site
// that shrank is not listed.
func TestHeapGrowthNamesTheSitesThatGrewMost(t *testing.T) {
	stacks := map[string][]string{
		"event": {"runtime.mallocgc", "k8s.io/client-go/tools/record.(*recorderImpl).makeEvent", "main.record"},
		"key":   {"runtime.mallocgc", "strings.Join", "k8s.io/client-go/tools/record.getEventKey"},
		"cache": {"runtime.makemap", "example.com/cache.(*C).Add"},
		// Only helpers: the innermost names it.
		"helper": {"internal/bytealg.MakeNoZero", "strings.(*Builder).grow"},
	}
	dir := t.TempDir()
	earlier, later := filepath.Join(dir, "a.pb.gz"), filepath.Join(dir, "b.pb.gz")
	writeHeapProfile(t, earlier, stacks, map[string]int64{"event": 1 << 20, "key": 1 << 20, "cache": 4 << 20, "helper": 0})
	writeHeapProfile(t, later, stacks, map[string]int64{"event": 4 << 20, "key": 2 << 20, "cache": 1 << 20, "helper": 512 << 10})
	got, err := heapGrowth(earlier, later, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []SiteGrowth{
		{"k8s.io/client-go/tools/record.(*recorderImpl).makeEvent", 3 << 20},
		{"k8s.io/client-go/tools/record.getEventKey", 1 << 20},
		{"internal/bytealg.MakeNoZero", 512 << 10},
	}
	if !slices.Equal(got, want) {
		t.Errorf("growth %+v, want %+v", got, want)
	}
}

// Each leader phase with a trend is compared between the profiles of its
// first and last live heap reading after warm-up; standbys are not.
func TestLeaderHeapGrowthComparesEachLeaderPhasesFirstAndLastProfile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, profilesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	stacks := map[string][]string{"queue": {"example.com/q.Push"}}
	var samples []Sample
	for m := 0; m <= 8; m++ {
		at := time.Duration(m) * time.Minute
		leader := ReplicaSample{Pid: 7, Up: true, Leader: true}
		standby := ReplicaSample{Pid: 8, Up: true}
		if m%2 == 0 {
			leader.LiveHeap, standby.LiveHeap = float64(m<<20), 1<<20
			writeHeapProfile(t, filepath.Join(dir, profilesDir, profileName(0, 7, at)), stacks, map[string]int64{"queue": int64(m) << 20})
		}
		samples = append(samples, Sample{At: at, Replicas: []ReplicaSample{leader, standby}})
	}
	got := leaderHeapGrowth(dir, phases(samples), 3)
	if len(got) != 1 {
		t.Fatalf("growth of %d phases, want the leader's only: %+v", len(got), got)
	}
	g := got[0]
	if g.Err != nil || g.Phase.FirstProfile != profileName(0, 7, 2*time.Minute) || g.Phase.LastProfile != profileName(0, 7, 8*time.Minute) {
		t.Fatalf("compared %s with %s (%v), want the profiles of 2m and 8m", g.Phase.FirstProfile, g.Phase.LastProfile, g.Err)
	}
	if want := []SiteGrowth{{"example.com/q.Push", 6 << 20}}; !slices.Equal(g.Sites, want) {
		t.Errorf("sites %+v, want %+v", g.Sites, want)
	}
}
