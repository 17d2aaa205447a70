package rollback

import (
	"testing"

	"github.com/csi-protect/external-provisioner/pkg/recyclebin"
)

// A class whose parameters read the claim needs a new class: upstream
// sends the tokens as written.
func TestClassWithClaimTokensNeedsYou(t *testing.T) {
	e := newEnv(
		class("tagged", map[string]string{
			"type":               "gp3",
			"tagSpecification_1": "team=${pvc.labels['team']}",
			"tagSpecification_2": "cost=${pvc.annotations['example.com/cost-centre']}",
		}),
		class("plain", map[string]string{"type": "gp3"}),
		// Secret templates are upstream's own.
		class("secrets", map[string]string{
			"csi.storage.k8s.io/provisioner-secret-name": "${pvc.name}",
			"csiProvisionerSecretName":                   "${pvc.name}",
			"csiProvisionerSecretNamespace":              "${pvc.namespace}",
		}),
	)
	r := e.run(t, ModeClear)
	f := only(t, r, kindClass, "tagged")
	requireAction(t, f, NeedsYou, "upstream sends these tokens to the driver unrendered: recreate the class without them")
	if want := "parameters tagSpecification_1, tagSpecification_2 read the claim (${pvc.…}, ${pv.…})"; f.What != want || f.Driver != driver {
		t.Errorf("what %q, driver %q; want %q", f.What, f.Driver, want)
	}
	if len(r.Findings) != 1 {
		t.Errorf("findings %+v, want the tagged class alone", r.Findings)
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("written: %v", w)
	}
}

// A class's retention is told, but holds nothing up: upstream deletes
// what is released after the swap, as it always did.
func TestClassRetentionIsToldOnly(t *testing.T) {
	kept := class("kept", nil)
	kept.Annotations = map[string]string{recyclebin.AnnRetention: "72h"}
	off := class("off", nil)
	off.Annotations = map[string]string{recyclebin.AnnRetention: "0"}
	r := newEnv(kept, off).run(t, ModeReport)
	requireAction(t, only(t, r, kindClass, "kept"), NoAction, "upstream ignores it: a claim of this class deleted after the swap has its volume deleted at once")
	if len(r.Findings) != 1 || !r.Verdict.Ready {
		t.Errorf("findings %+v, verdict %+v", r.Findings, r.Verdict)
	}
}
