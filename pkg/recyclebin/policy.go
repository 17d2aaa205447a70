package recyclebin

import (
	"fmt"
	"time"

	storagev1 "k8s.io/api/storage/v1"
)

// Policy is the retention in force: the cluster-wide default of
// --volume-retention, which a StorageClass may override.
type Policy struct {
	// Default is the retention of volumes whose class does not say; 0 is
	// off.
	Default time.Duration
}

// For returns the retention of a volume of class, which may be nil (the
// class is gone, or the PV names none): then the default applies. A class
// whose setting does not parse is an error, never "no retention": a typo
// must not delete data.
func (p Policy) For(class *storagev1.StorageClass) (time.Duration, error) {
	if class == nil {
		return p.Default, nil
	}
	value, ok := class.Annotations[AnnRetention]
	if !ok {
		return p.Default, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		return 0, fmt.Errorf("StorageClass %s: annotation %s=%q is not a duration such as 72h: %w", class.Name, AnnRetention, value, err)
	}
	if d < 0 {
		return 0, fmt.Errorf("StorageClass %s: annotation %s=%q is negative", class.Name, AnnRetention, value)
	}
	return d, nil
}
