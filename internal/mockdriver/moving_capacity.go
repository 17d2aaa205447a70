package mockdriver

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"time"
)

// Moving makes GetCapacity's answer move over time, as on nodes whose
// storage is filled and freed by others than the CO (other volume groups,
// snapshots, thin pools: topolvm issue #1201). For a share of the topology
// segments, chosen by Seed and the segment's name, every pool's free space
// moves once a Period to a new value within ±Amplitude of the pool's size
// around what the driver's volumes leave free.
//
// The answer is a pure function of (Seed, segment, pool, the number of the
// Period): MovingCapacity. Another process, such as a benchmark comparing
// the published CSIStorageCapacity objects with the driver, computes the
// driver's answer at any time without asking it, and the periods start at
// multiples of Period since the Unix epoch so that both agree on when a
// value changes. Only GetCapacity moves: CreateVolume still checks the
// pool's size, since the moves model what the driver reports.
type Moving struct {
	// Share is the share (0..1) of segments whose capacity moves; 0 is
	// off.
	Share float64
	// Amplitude is the largest move, as a share (0..1) of the pool's
	// size. A move up may report more than the pool's size, as a thin
	// pool's over-commitment would.
	Amplitude float64
	// Period is how long one value holds. It must be positive when Share
	// is.
	Period time.Duration
	// Seed chooses the segments and the values.
	Seed int64
	// Now is the clock GetCapacity reads; tests set it. Defaults to
	// time.Now.
	Now func() time.Time
}

// On tells whether any capacity moves.
func (m Moving) On() bool { return m.Share > 0 && m.Amplitude > 0 }

func (m Moving) withDefaults() (Moving, error) {
	if math.IsNaN(m.Share) || m.Share < 0 || m.Share > 1 {
		return m, fmt.Errorf("invalid moving capacity share %v: must be between 0 and 1", m.Share)
	}
	if math.IsNaN(m.Amplitude) || m.Amplitude < 0 || m.Amplitude > 1 {
		return m, fmt.Errorf("invalid moving capacity amplitude %v: must be between 0 and 1", m.Amplitude)
	}
	if m.On() && m.Period <= 0 {
		return m, errors.New("invalid moving capacity period: must be positive")
	}
	if m.Now == nil {
		m.Now = time.Now
	}
	return m, nil
}

// Moves tells whether the capacity of segment (the value of TopologyKey,
// "" without topology) moves.
func (m Moving) Moves(segment string) bool {
	if !m.On() {
		return false
	}
	return unitInterval(hashOf(m.Seed, segment)) < m.Share
}

// PeriodOf is the number of the period at, counted from the Unix epoch:
// the value of a moving pool changes when it does.
func (m Moving) PeriodOf(at time.Time) int64 {
	if m.Period <= 0 {
		return 0
	}
	n := at.UnixNano()
	p := m.Period.Nanoseconds()
	// Floor, not truncation, so that times before 1970 (never in
	// practice) still change at period boundaries.
	q := n / p
	if n%p < 0 {
		q--
	}
	return q
}

// MovingCapacity is what a driver with m reports at time at for pool on
// segment, whose volumes leave available of the pool's size bytes free:
// available itself when the segment does not move or the pool has no size
// (unlimited), else available moved by at most Amplitude × size, never
// below zero.
func MovingCapacity(m Moving, segment, pool string, available, size int64, at time.Time) int64 {
	if size <= 0 || !m.Moves(segment) {
		return available
	}
	h := hashOf(m.Seed, segment, pool, fmt.Sprint(m.PeriodOf(at)))
	// u is uniform in [-1, 1).
	u := 2*unitInterval(h) - 1
	offset := int64(math.Round(u * m.Amplitude * float64(size)))
	return max(available+offset, 0)
}

// hashOf mixes the seed and the parts into 64 bits. FNV-1a alone leaves
// names that differ in their last character ("node-1", "node-2") close
// together in the high bits, so splitmix64's finaliser spreads them.
func hashOf(seed int64, parts ...string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	for _, p := range parts {
		h.Write([]byte(p))
		// A separator, so that ("ab", "c") and ("a", "bc") differ.
		h.Write([]byte{0})
	}
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// unitInterval maps 64 bits to [0, 1) with 53 bits of precision.
func unitInterval(h uint64) float64 { return float64(h>>11) / (1 << 53) }
