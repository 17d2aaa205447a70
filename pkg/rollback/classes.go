package rollback

import (
	"fmt"
	"strings"

	storagev1 "k8s.io/api/storage/v1"

	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
	"github.com/csi-protect/external-provisioner/pkg/recyclebin"
)

// classFindings are what upstream would do otherwise with a StorageClass:
// send its claim tokens to the driver unrendered, and ignore its
// retention. Neither is cleared: only the operator may change a class.
func classFindings(class *storagev1.StorageClass) []Finding {
	var out []Finding
	row := func(what string, action Action) {
		out = append(out, Finding{Kind: kindClass, Name: class.Name, Driver: class.Provisioner, What: what, Action: action})
	}
	if keys := parameters.ClaimTokenKeys(class.Parameters); len(keys) > 0 {
		what := fmt.Sprintf("parameters %s read", strings.Join(keys, ", "))
		if len(keys) == 1 {
			what = fmt.Sprintf("parameter %s reads", keys[0])
		}
		row(what+" the claim (${pvc.…}, ${pv.…})",
			needsYou("upstream sends these tokens to the driver unrendered: recreate the class without them (parameters cannot be edited)"))
	}
	if retention, ok := class.Annotations[recyclebin.AnnRetention]; ok && retention != "0" {
		// Volumes kept already stay kept (see volumeFindings); this is
		// about the claims deleted after the swap.
		row(fmt.Sprintf("annotation %s=%s", short(recyclebin.AnnRetention), retention),
			noAction("upstream ignores it: a claim of this class deleted after the swap has its volume deleted at once"))
	}
	return out
}
