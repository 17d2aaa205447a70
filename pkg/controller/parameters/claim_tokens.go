package parameters

import (
	"slices"
	"strings"
)

// ClaimTokenKeys lists, sorted, the parameters of a StorageClass that reach
// the driver and whose values hold a claim token (${pvc.…} or ${pv.…}),
// which only --claim-parameter-templates renders: a provisioner without it
// sends them to the driver as written. Reserved keys never reach the
// driver. The deprecated secret keys are left out: they were secret
// templates before claim tokens existed, and a class that uses them works
// as it always did.
func ClaimTokenKeys(params map[string]string) []string {
	var keys []string
	for key, value := range params {
		if strings.HasPrefix(key, Prefix) {
			continue
		}
		if _, secret := secretKeyIndex[key]; secret {
			continue
		}
		// The renderer is the detector: a value it reads the claim for,
		// or refuses for an unknown ${pvc.…} token, holds a claim token.
		var read *ClaimMetadata
		var missing []string
		if _, err := renderValue(value, ClaimInput{}, &read, &missing); err != nil || read != nil {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys
}
