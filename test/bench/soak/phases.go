package soak

import (
	"slices"
	"time"
)

const (
	// warmUp of each phase is left out of its trend: caches fill and
	// informers list then, and a new leader starts its controllers.
	warmUp = time.Minute
	// minTrendSpan is the shortest span after warm-up worth a trend.
	minTrendSpan = 4 * time.Minute
	// minHalvesSpan is the shortest span after warm-up whose second half
	// gets its own trend: a bounded queue or cache grows until it is full
	// and then stays flat, where a leak keeps the slope of the first half.
	minHalvesSpan = 20 * time.Minute
)

// Phase is one replica's process in one role (leader or standby) between
// two changes, as sampled: a restart, or a standby taking the lead, starts
// a new one.
type Phase struct {
	Replica int           `json:"replica"`
	Pid     int           `json:"pid"`
	Leader  bool          `json:"leader"`
	From    time.Duration `json:"from"`
	To      time.Duration `json:"to"`
	// Trend says the phase lasted long enough after its warm-up for the
	// figures below: the first and last sample after warm-up, and the
	// least-squares slope per hour over them.
	Trend                           bool    `json:"trend"`
	RSSFirst, RSSLast               int64   `json:"-"`
	RSSSlopePerHour                 float64 `json:"rssSlopePerHour"`
	HeapFirst, HeapLast             float64 `json:"-"`
	HeapSlopePerHour                float64 `json:"heapSlopePerHour"`
	GoroutinesFirst, GoroutinesLast float64 `json:"-"`
	GoroutinesSlopePerHour          float64 `json:"goroutinesSlopePerHour"`
	// Halves says the phase lasted long enough for trends over the second
	// half of its samples after warm-up as well.
	Halves                     bool    `json:"halves,omitempty"`
	RSSLateSlopePerHour        float64 `json:"rssLateSlopePerHour,omitempty"`
	HeapLateSlopePerHour       float64 `json:"heapLateSlopePerHour,omitempty"`
	GoroutinesLateSlopePerHour float64 `json:"goroutinesLateSlopePerHour,omitempty"`
	// LiveHeaps are the phase's live heap readings after warm-up (see
	// ReplicaSample.LiveHeap), in order.
	LiveHeaps []float64 `json:"liveHeaps,omitempty"`
	// FirstProfile and LastProfile name the heap profiles taken with the
	// first and last of LiveHeaps, in the profiles folder.
	FirstProfile, LastProfile string `json:"-"`
}

// phases splits each replica's samples at its restarts and role changes.
func phases(samples []Sample) []Phase {
	type series struct {
		phase           Phase
		t, rss, heap, g []float64
	}
	var out []Phase
	flush := func(s *series) {
		if s == nil {
			return
		}
		n, span := len(s.t), time.Duration(0)
		if n >= 2 {
			span = time.Duration((s.t[n-1] - s.t[0]) * float64(time.Hour))
		}
		if span >= minTrendSpan {
			p := &s.phase
			p.Trend = true
			p.RSSFirst, p.RSSLast = int64(s.rss[0]), int64(s.rss[n-1])
			p.HeapFirst, p.HeapLast = s.heap[0], s.heap[n-1]
			p.GoroutinesFirst, p.GoroutinesLast = s.g[0], s.g[n-1]
			p.RSSSlopePerHour = slope(s.t, s.rss)
			p.HeapSlopePerHour = slope(s.t, s.heap)
			p.GoroutinesSlopePerHour = slope(s.t, s.g)
			if span >= minHalvesSpan {
				mid := (s.t[0] + s.t[n-1]) / 2
				h, _ := slices.BinarySearch(s.t, mid)
				p.Halves = true
				p.RSSLateSlopePerHour = slope(s.t[h:], s.rss[h:])
				p.HeapLateSlopePerHour = slope(s.t[h:], s.heap[h:])
				p.GoroutinesLateSlopePerHour = slope(s.t[h:], s.g[h:])
			}
		}
		out = append(out, s.phase)
	}
	replicas := 0
	for _, smp := range samples {
		replicas = max(replicas, len(smp.Replicas))
	}
	for i := range replicas {
		var cur *series
		for _, smp := range samples {
			if i >= len(smp.Replicas) || !smp.Replicas[i].Up {
				continue
			}
			r := smp.Replicas[i]
			if cur == nil || cur.phase.Pid != r.Pid || cur.phase.Leader != r.Leader {
				flush(cur)
				cur = &series{phase: Phase{Replica: i, Pid: r.Pid, Leader: r.Leader, From: smp.At}}
			}
			cur.phase.To = smp.At
			if smp.At-cur.phase.From >= warmUp {
				if r.LiveHeap > 0 {
					cur.phase.LiveHeaps = append(cur.phase.LiveHeaps, r.LiveHeap)
					cur.phase.LastProfile = profileName(i, r.Pid, smp.At)
					if cur.phase.FirstProfile == "" {
						cur.phase.FirstProfile = cur.phase.LastProfile
					}
				}
				cur.t = append(cur.t, smp.At.Hours())
				cur.rss = append(cur.rss, float64(r.RSSBytes))
				cur.heap = append(cur.heap, r.HeapInuse)
				cur.g = append(cur.g, r.Goroutines)
			}
		}
		flush(cur)
	}
	return out
}

// slope is the least-squares slope of y over x.
func slope(x, y []float64) float64 {
	n := float64(len(x))
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
