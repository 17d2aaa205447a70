package recyclebin

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Record returns the annotations and label that keep pv's volume until
// until, all written in one write: the deadline, and the claim the volume
// came from (its claimRef, which the release left in place).
func Record(pv *v1.PersistentVolume, until time.Time) (annotations, labels map[string]string) {
	annotations = map[string]string{AnnRetainedUntil: until.UTC().Format(time.RFC3339)}
	if ref := pv.Spec.ClaimRef; ref != nil {
		annotations[AnnRetainedFrom] = claimID(ref.Namespace, ref.Name, ref.UID)
	}
	return annotations, map[string]string{LabelRetained: "true"}
}

// Recorded lists the keys of the bin on a PV (those Record writes, and the
// user's requests), for the write that gives a volume back and so clears
// them: a purge request left behind would delete the next release at once.
func Recorded() (annotations, labels []string) {
	return []string{AnnRetainedUntil, AnnRetainedFrom, AnnRestoreTo, AnnPurge}, []string{LabelRetained}
}

// claimID names one claim, as the bin's annotations do.
func claimID(namespace, name string, uid types.UID) string {
	return fmt.Sprintf("%s/%s %s", namespace, name, uid)
}
