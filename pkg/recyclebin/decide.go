package recyclebin

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
)

// State is what the bin says of a released PV.
type State int

const (
	// Delete: the volume is deleted as without the bin (no retention, or
	// the PV is not the bin's to keep).
	Delete State = iota
	// Retain: retention applies and nothing is recorded yet; the volume
	// is kept, and the deadline is to be written on the PV.
	Retain
	// Keep: the volume is kept until the recorded deadline.
	Keep
	// Expired: the recorded deadline has passed; the volume is deleted.
	Expired
	// Purge: the PV object is being deleted, or a user asked for a purge;
	// the volume is deleted now.
	Purge
	// Rebinding: the PV is Released but names a claim that exists, as
	// right after a restore pointed it at a new claim and before
	// kube-controller-manager bound them (or while the cache has not seen
	// the old claim go). Its volume is not deleted, nor recorded.
	Rebinding
)

func (s State) String() string {
	switch s {
	case Delete:
		return "Delete"
	case Retain:
		return "Retain"
	case Keep:
		return "Keep"
	case Expired:
		return "Expired"
	case Purge:
		return "Purge"
	case Rebinding:
		return "Rebinding"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Holds reports whether the volume must not be deleted in this state.
func (s State) Holds() bool { return s == Retain || s == Keep || s == Rebinding }

// Decision is the bin's answer for one PV.
type Decision struct {
	State State
	// Until is the recorded deadline (Keep, Expired), or the one to record
	// (Retain).
	Until time.Time
}

// Decide says what becomes of pv's volume at now, when retention is what
// its class sets today. Only a released PV with reclaim policy Delete (the
// one recorded while the bin keeps it, see reclaimPolicy) is the bin's; any other is Delete, which leaves it to the checks that exist
// without the bin. A recorded deadline wins over retention: the retention
// in force at release is the one that counts. A recorded deadline that does
// not parse keeps the volume and is an error: bad input must not delete
// data.
func Decide(pv *v1.PersistentVolume, retention time.Duration, now time.Time) (Decision, error) {
	if reclaimPolicy(pv) != v1.PersistentVolumeReclaimDelete {
		return Decision{State: Delete}, nil
	}
	if pv.DeletionTimestamp != nil || pv.Annotations[AnnPurge] == "true" {
		return Decision{State: Purge}, nil
	}
	if value, recorded := pv.Annotations[AnnRetainedUntil]; recorded {
		until, err := time.Parse(time.RFC3339, value)
		if err != nil {
			return Decision{State: Keep}, fmt.Errorf("PersistentVolume %s: annotation %s=%q is not an RFC 3339 time: %w", pv.Name, AnnRetainedUntil, value, err)
		}
		if now.Before(until) {
			return Decision{State: Keep, Until: until}, nil
		}
		return Decision{State: Expired, Until: until}, nil
	}
	if pv.Status.Phase != v1.VolumeReleased || retention <= 0 {
		return Decision{State: Delete}, nil
	}
	// Whole seconds: RFC 3339 as written keeps no more, and the deadline
	// read back must be the one decided.
	return Decision{State: Retain, Until: now.Add(retention).UTC().Truncate(time.Second)}, nil
}
