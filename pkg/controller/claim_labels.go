package controller

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// LabelKeys selects the claim labels that a new PV gets
// (--claim-labels-to-volume): exact keys, and prefixes written with a
// trailing '*' ("example.com/*", "team-*", or "*" for all). Labels of the
// Kubernetes domains are never copied, as Kubernetes reads them on PVs
// (topology.kubernetes.io/zone decides where a pod may run, say) and the
// sidecar reads its own (provisioner.storage.kubernetes.io/…): a claim
// author must not set them through the claim. app.kubernetes.io/ is the
// exception, as Kubernetes only recommends it to applications.
type LabelKeys struct {
	keys     map[string]bool
	prefixes []string
}

// ParseLabelKeys reads the entries of --claim-labels-to-volume.
func ParseLabelKeys(entries []string) (LabelKeys, error) {
	var k LabelKeys
	for _, entry := range entries {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if prefix, ok := strings.CutSuffix(entry, "*"); ok {
			// "x" completes a prefix into the shortest key it may start.
			if prefix != "" && !strings.HasSuffix(prefix, "/") {
				if msgs := validation.IsQualifiedName(prefix + "x"); len(msgs) > 0 {
					return LabelKeys{}, fmt.Errorf("label key prefix %q: %s", entry, strings.Join(msgs, "; "))
				}
			} else if prefix != "" {
				if msgs := validation.IsDNS1123Subdomain(strings.TrimSuffix(prefix, "/")); len(msgs) > 0 {
					return LabelKeys{}, fmt.Errorf("label key prefix %q: %s", entry, strings.Join(msgs, "; "))
				}
			}
			if reservedLabel(prefix + "x") {
				return LabelKeys{}, fmt.Errorf("label key prefix %q is in a Kubernetes domain, whose labels are never copied", entry)
			}
			k.prefixes = append(k.prefixes, prefix)
			continue
		}
		if msgs := validation.IsQualifiedName(entry); len(msgs) > 0 {
			return LabelKeys{}, fmt.Errorf("label key %q: %s", entry, strings.Join(msgs, "; "))
		}
		if reservedLabel(entry) {
			return LabelKeys{}, fmt.Errorf("label key %q is in a Kubernetes domain, whose labels are never copied", entry)
		}
		if k.keys == nil {
			k.keys = map[string]bool{}
		}
		k.keys[entry] = true
	}
	return k, nil
}

// Empty tells whether no label is copied.
func (k LabelKeys) Empty() bool { return len(k.keys) == 0 && len(k.prefixes) == 0 }

// Select returns the labels to copy; nil when none.
func (k LabelKeys) Select(labels map[string]string) map[string]string {
	if k.Empty() {
		return nil
	}
	var out map[string]string
	for key, value := range labels {
		if !k.selects(key) || reservedLabel(key) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[key] = value
	}
	return out
}

func (k LabelKeys) selects(key string) bool {
	if k.keys[key] {
		return true
	}
	for _, prefix := range k.prefixes {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}

// reservedLabel: the key is in kubernetes.io or k8s.io, or a subdomain of
// either, other than app.kubernetes.io.
func reservedLabel(key string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok || domain == "app.kubernetes.io" {
		return false
	}
	for _, reserved := range []string{"kubernetes.io", "k8s.io"} {
		if domain == reserved || strings.HasSuffix(domain, "."+reserved) {
			return true
		}
	}
	return false
}
