package soak

import (
	"time"
)

const (
	// warmUp of each incarnation is left out of its trend: caches fill
	// and informers list then.
	warmUp = time.Minute
	// minTrendSpan is the shortest span after warm-up worth a trend.
	minTrendSpan = 5 * time.Minute
)

// Incarnation is one run of one replica's process, as sampled.
type Incarnation struct {
	Replica int           `json:"replica"`
	Pid     int           `json:"pid"`
	From    time.Duration `json:"from"`
	To      time.Duration `json:"to"`
	// The first and last sample after warm-up, and the least-squares
	// slope per hour between them; zero when the span is too short.
	RSSFirst, RSSLast               int64
	RSSSlopePerHour                 float64
	GoroutinesFirst, GoroutinesLast float64
	GoroutinesSlopePerHour          float64
	Trend                           bool
}

// incarnations splits each replica's samples at its restarts.
func incarnations(samples []Sample) []Incarnation {
	type series struct {
		inc       Incarnation
		t, rss, g []float64
	}
	var out []Incarnation
	flush := func(s *series) {
		if s == nil || s.inc.Pid == 0 {
			return
		}
		if len(s.t) >= 2 && time.Duration((s.t[len(s.t)-1]-s.t[0])*float64(time.Hour)) >= minTrendSpan {
			s.inc.Trend = true
			s.inc.RSSFirst, s.inc.RSSLast = int64(s.rss[0]), int64(s.rss[len(s.rss)-1])
			s.inc.GoroutinesFirst, s.inc.GoroutinesLast = s.g[0], s.g[len(s.g)-1]
			s.inc.RSSSlopePerHour = slope(s.t, s.rss)
			s.inc.GoroutinesSlopePerHour = slope(s.t, s.g)
		}
		out = append(out, s.inc)
	}
	replicas := 0
	for _, smp := range samples {
		replicas = max(replicas, len(smp.Replicas))
	}
	for i := range replicas {
		var cur *series
		for _, smp := range samples {
			if i >= len(smp.Replicas) {
				continue
			}
			r := smp.Replicas[i]
			if !r.Up {
				continue
			}
			if cur == nil || cur.inc.Pid != r.Pid {
				flush(cur)
				cur = &series{inc: Incarnation{Replica: i, Pid: r.Pid, From: smp.At}}
			}
			cur.inc.To = smp.At
			if smp.At-cur.inc.From >= warmUp {
				cur.t = append(cur.t, smp.At.Hours())
				cur.rss = append(cur.rss, float64(r.RSSBytes))
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
