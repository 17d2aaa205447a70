package capacity

import (
	"math"
	"slices"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// relativeError is how far a published capacity is from the driver's
// current answer, as a share of the answer: |published − current| /
// current. An answer of zero makes any other published value wrong by
// 100%, rather than infinitely.
func relativeError(published, current int64) float64 {
	if current == 0 {
		if published == 0 {
			return 0
		}
		return 1
	}
	return math.Abs(float64(published-current)) / float64(current)
}

// quantile is the nearest-rank q-quantile (0 < q ≤ 1) of sorted values,
// 0 for none: nearest rank never reports an error no object had.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(1, min(rank, len(sorted)))-1]
}

// fits tells on which side of a class's largest request a capacity is:
// whether the largest claim fits.
func fits(capacity, largestRequest int64) bool { return capacity >= largestRequest }

// hiddenCrossings follows, object by object, how long the published
// capacity stays on the other side of its class's largest request than the
// driver's answer: a change the scheduler does not see. A streak starts at
// the first sample that finds the sides differ and ends at the first that
// finds them agree (or the object gone), so it is measured to the sampling
// interval.
type hiddenCrossings struct {
	// since is when each object's open streak was first seen.
	since map[framework.CapacityKey]time.Time
	// Longest is the longest streak, ended or still open at finish, and
	// LongestObject the object it was of.
	Longest       time.Duration
	LongestObject framework.CapacityKey
	// Streaks counts the streaks; OverLimit those longer than limit.
	Streaks   int
	OverLimit int
	limit     time.Duration
}

func newHiddenCrossings(limit time.Duration) *hiddenCrossings {
	return &hiddenCrossings{since: map[framework.CapacityKey]time.Time{}, limit: limit}
}

// observe records one object's published capacity and the driver's answer
// at a sample.
func (h *hiddenCrossings) observe(at time.Time, key framework.CapacityKey, published, current, largestRequest int64) {
	start, open := h.since[key]
	hidden := fits(published, largestRequest) != fits(current, largestRequest)
	switch {
	case hidden && !open:
		h.since[key] = at
		h.Streaks++
	case !hidden && open:
		h.end(key, at.Sub(start))
	}
}

// gone ends the streak of an object that has no published capacity now.
func (h *hiddenCrossings) gone(at time.Time, key framework.CapacityKey) {
	if start, open := h.since[key]; open {
		h.end(key, at.Sub(start))
	}
}

// open is how many objects hide a crossing now.
func (h *hiddenCrossings) open() int { return len(h.since) }

// finish ends every open streak at the end of the phase.
func (h *hiddenCrossings) finish(at time.Time) {
	for _, key := range sortedKeys(h.since) {
		h.end(key, at.Sub(h.since[key]))
	}
}

func (h *hiddenCrossings) end(key framework.CapacityKey, d time.Duration) {
	delete(h.since, key)
	if d > h.Longest {
		h.Longest, h.LongestObject = d, key
	}
	if d > h.limit {
		h.OverLimit++
	}
}

// sortedKeys orders objects by class, then segment, for a deterministic
// result.
func sortedKeys[V any](m map[framework.CapacityKey]V) []framework.CapacityKey {
	keys := make([]framework.CapacityKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b framework.CapacityKey) int {
		if a.Class != b.Class {
			if a.Class < b.Class {
				return -1
			}
			return 1
		}
		switch {
		case a.Segment < b.Segment:
			return -1
		case a.Segment > b.Segment:
			return 1
		}
		return 0
	})
	return keys
}
