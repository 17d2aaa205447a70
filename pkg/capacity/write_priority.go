package capacity

import (
	"math"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// writePriority orders pending writes: with a client budget far below the
// rate of changes, the changes the scheduler acts on go first.
type writePriority struct {
	// crossing: the value the scheduler compares with a claim's size is
	// on the other side of the largest request of the class in the answer
	// than in the published object. Such an object either hides a node
	// that now has room or offers one that no longer has.
	crossing bool
	// change is the largest relative change of capacity or
	// maximumVolumeSize, |new - published| / max(new, published): 0 to 1.
	change float64
}

// before tells whether p is written before o.
func (p writePriority) before(o writePriority) bool {
	if p.crossing != o.crossing {
		return p.crossing
	}
	return p.change > o.change
}

// priority of writing capacity and maxSize over published, an object of
// class. Without Options.LargestRequest, or with the class's unknown, only
// the relative change orders. It is computed when the answer is recorded:
// a request that grows later counts from the key's next check.
func (c *Controller) priority(class string, published *storagev1.CSIStorageCapacity, capacity, maxSize *resource.Quantity) writePriority {
	p := writePriority{change: max(
		relativeChange(published.Capacity, capacity),
		relativeChange(published.MaximumVolumeSize, maxSize),
	)}
	if c.opts.LargestRequest != nil {
		if size, ok := c.opts.LargestRequest(class); ok {
			p.crossing = fits(published.Capacity, published.MaximumVolumeSize, size) != fits(capacity, maxSize, size)
		}
	}
	return p
}

// fits is the scheduler's test of a volume of size bytes against an
// object (volumebinding's capacitySufficient): maximumVolumeSize when
// set, else capacity, must be at least size.
func fits(capacity, maxSize *resource.Quantity, size int64) bool {
	limit := capacity
	if maxSize != nil {
		limit = maxSize
	}
	return limit != nil && limit.Value() >= size
}

// relativeChange is |b - a| / max(a, b), a missing value counting as 0.
func relativeChange(a, b *resource.Quantity) float64 {
	var x, y float64
	if a != nil {
		x = float64(a.Value())
	}
	if b != nil {
		y = float64(b.Value())
	}
	hi := max(x, y)
	if hi <= 0 {
		return 0
	}
	return math.Abs(x-y) / hi
}
