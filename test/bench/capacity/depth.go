package capacity

import (
	"context"
	"sync"
	"time"
)

// depthSpacing is how many times its own duration the depth sampler waits
// between the starts of two scrapes, at least SampleEvery: upstream's
// sidecar gathers its capacity metrics under the controller's lock,
// comparing every object with every work item, which takes seconds with
// thousands of objects and stops its worker meanwhile. Scrapes that
// overlapped, or a client that gave up on one (the server goes on), would
// starve the very queue being measured; spaced out this way the sampler
// holds the lock a tenth of the time at most.
const depthSpacing = 10

// depthSampler reads the capacity backlog from a sidecar's metrics over a
// phase, one scrape at a time.
type depthSampler struct {
	mu      sync.Mutex
	samples []DepthSample
	failed  int
	last    int
	// wait returns once the sampler stopped.
	wait func()
}

// sampleDepth scrapes sc's metrics from its start until end, each scrape
// allowed timeout, every every at the most often.
func sampleDepth(ctx context.Context, sc *sidecar, end time.Time, every, timeout time.Duration) *depthSampler {
	d := &depthSampler{last: -1}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			start := time.Now()
			if !start.Before(end) || ctx.Err() != nil {
				return
			}
			depth, pending := sc.backlog(ctx, timeout)
			took := time.Since(start)
			d.record(DepthSample{At: start.Sub(sc.started), Depth: depth, Pending: pending, Took: took})
			select {
			case <-ctx.Done():
				return
			case <-time.After(min(scrapeGap(every, took), time.Until(end))):
			}
		}
	})
	d.wait = wg.Wait
	return d
}

// scrapeGap is how long to wait after a scrape that took took before the
// next: every from start to start, or depthSpacing times the scrape's
// duration if that is longer.
func scrapeGap(every, took time.Duration) time.Duration {
	return max(every, depthSpacing*took) - took
}

func (d *depthSampler) record(s DepthSample) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.Depth < 0 {
		d.failed++
		return
	}
	d.samples = append(d.samples, s)
	d.last = s.Backlog()
}

// latest is the backlog the last scrape that answered read, -1 for none.
func (d *depthSampler) latest() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

// result waits for the scrape in flight and returns the samples and how
// many scrapes failed.
func (d *depthSampler) result() ([]DepthSample, int) {
	d.wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.samples, d.failed
}

// depthSummary is the largest backlog read in the phase's first poll
// interval, in its last, and overall, and the slowest scrape; -1 for an
// interval without a reading.
func depthSummary(samples []DepthSample, failed int, poll, phase time.Duration) DepthSummary {
	d := DepthSummary{FirstPoll: -1, LastPoll: -1, Max: -1, Scrapes: len(samples), FailedScrapes: failed}
	for _, s := range samples {
		b := s.Backlog()
		if s.At < poll {
			d.FirstPoll = max(d.FirstPoll, b)
		}
		if s.At >= phase-poll {
			d.LastPoll = max(d.LastPoll, b)
		}
		d.Max = max(d.Max, b)
		d.SlowestScrape = max(d.SlowestScrape, s.Took)
	}
	return d
}
