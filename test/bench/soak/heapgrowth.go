package soak

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// profilesDir is the folder, in the run's output folder, of the heap
// profiles.
const profilesDir = "profiles"

// profileName is the file, in the profiles folder, of a replica's heap
// profile taken at a moment of the run.
func profileName(replica, pid int, at time.Duration) string {
	return fmt.Sprintf("heap-replica%d-pid%d-%s.pb.gz", replica, pid, at.Round(time.Second))
}

// SiteGrowth is how much more heap one allocation site holds in a later
// profile than in an earlier one.
type SiteGrowth struct {
	Function string
	Bytes    int64
}

// heapGrowth compares two heap profiles of one process by the in-use
// bytes of each allocation site and returns the n sites that grew most.
// A site is the innermost function outside the runtime and the standard
// library's helpers, which say little about who allocated. Profiles are
// sampled (one sample per 512 KiB allocated, on average): growth below
// about a MiB is noise.
func heapGrowth(earlier, later string, n int) ([]SiteGrowth, error) {
	before, err := inuseBySite(earlier)
	if err != nil {
		return nil, err
	}
	after, err := inuseBySite(later)
	if err != nil {
		return nil, err
	}
	var out []SiteGrowth
	for site, b := range after {
		if d := b - before[site]; d > 0 {
			out = append(out, SiteGrowth{Function: site, Bytes: d})
		}
	}
	slices.SortFunc(out, func(a, b SiteGrowth) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), strings.Compare(a.Function, b.Function))
	})
	return out[:min(n, len(out))], nil
}

func inuseBySite(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	index := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == "inuse_space" })
	if index < 0 {
		return nil, fmt.Errorf("%s is not a heap profile: no inuse_space", path)
	}
	out := map[string]int64{}
	for _, s := range p.Sample {
		out[allocationSite(s)] += s.Value[index]
	}
	return out, nil
}

// helperPackages allocate on behalf of their callers.
var helperPackages = []string{"runtime.", "internal/", "strings.", "bytes.", "reflect.", "fmt.", "strconv.", "slices.", "maps."}

func allocationSite(s *profile.Sample) string {
	first := ""
	for _, loc := range s.Location {
		// Line holds the inlined calls of a location, innermost first.
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			name := line.Function.Name
			if first == "" {
				first = name
			}
			if !slices.ContainsFunc(helperPackages, func(prefix string) bool { return strings.HasPrefix(name, prefix) }) {
				return name
			}
		}
	}
	if first == "" {
		return "(unknown)"
	}
	return first
}

// PhaseGrowth is what grew in one leader phase's heap: the allocation sites
// whose in-use bytes grew most between its first and last profile after
// warm-up.
type PhaseGrowth struct {
	Phase Phase
	Sites []SiteGrowth
	Err   error
}

// leaderHeapGrowth is the growth of each leader phase with a trend and two
// profiles, read from the run's output folder dir.
func leaderHeapGrowth(dir string, all []Phase, sites int) []PhaseGrowth {
	var out []PhaseGrowth
	for _, p := range all {
		if !p.Leader || !p.Trend || p.FirstProfile == "" || p.FirstProfile == p.LastProfile {
			continue
		}
		g := PhaseGrowth{Phase: p}
		g.Sites, g.Err = heapGrowth(filepath.Join(dir, profilesDir, p.FirstProfile), filepath.Join(dir, profilesDir, p.LastProfile), sites)
		out = append(out, g)
	}
	return out
}
