package capacity

import (
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestWritePriority(t *testing.T) {
	published := func(capacity, maxSize *resource.Quantity) *storagev1.CSIStorageCapacity {
		return &storagev1.CSIStorageCapacity{Capacity: capacity, MaximumVolumeSize: maxSize}
	}
	largest := func(class string) (int64, bool) { return 4 * gib, class == "late" }
	for _, tc := range []struct {
		name              string
		class             string
		published         *storagev1.CSIStorageCapacity
		capacity, maxSize *resource.Quantity
		want              writePriority
	}{
		{"capacity falls below the request", "late", published(qty(5*gib), nil), qty(3 * gib), nil, writePriority{crossing: true, change: 0.4}},
		{"capacity rises to the request", "late", published(qty(3*gib), nil), qty(4 * gib), nil, writePriority{crossing: true, change: 0.25}},
		{"capacity stays above", "late", published(qty(100*gib), nil), qty(10 * gib), nil, writePriority{change: 0.9}},
		// The scheduler reads maximumVolumeSize when there is one.
		{"maximum volume size crosses, capacity does not", "late", published(qty(100*gib), qty(5*gib)), qty(100 * gib), qty(2 * gib), writePriority{crossing: true, change: 0.6}},
		{"capacity crosses under a maximum volume size that does not", "late", published(qty(5*gib), qty(50*gib)), qty(3 * gib), qty(50 * gib), writePriority{change: 0.4}},
		{"a maximum volume size appears below the request", "late", published(qty(10*gib), nil), qty(10 * gib), qty(2 * gib), writePriority{crossing: true, change: 1}},
		{"no capacity published fits nothing", "late", published(nil, nil), qty(5 * gib), nil, writePriority{crossing: true, change: 1}},
		{"an unknown class orders by change only", "other", published(qty(5*gib), nil), qty(3 * gib), nil, writePriority{change: 0.4}},
		{"owner only", "late", published(qty(5*gib), nil), qty(5 * gib), nil, writePriority{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Controller{opts: Options{LargestRequest: largest}}
			if got := c.priority(tc.class, tc.published, tc.capacity, tc.maxSize); got != tc.want {
				t.Errorf("priority %+v, want %+v", got, tc.want)
			}
		})
	}
	t.Run("without LargestRequest", func(t *testing.T) {
		c := &Controller{}
		if got, want := c.priority("late", published(qty(5*gib), nil), qty(3*gib), nil), (writePriority{change: 0.4}); got != want {
			t.Errorf("priority %+v, want %+v", got, want)
		}
	})
}
