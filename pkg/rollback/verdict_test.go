package rollback

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// lastLine is the verdict: the report's last line.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestVerdictReadyWithKeptVolumes(t *testing.T) {
	e := newEnv(keptPV("pvc-1"), keptPV("pvc-2"), claim("data-0", v1.ClaimBound))
	r := e.run(t, ModeReport)
	want := "Ready to swap back: nothing upstream would mishandle (2 kept volumes stay kept, and will not expire under upstream)."
	if got := lastLine(e.out.String()); got != want || !r.Verdict.Ready {
		t.Errorf("verdict %q (ready %v)\nwant %q", got, r.Verdict.Ready, want)
	}
}

func TestVerdictReadyOnAnEmptyCluster(t *testing.T) {
	e := newEnv()
	e.run(t, ModeReport)
	want := "Checked 0 claims, 0 PVs and 0 StorageClasses in the whole cluster; --prepare-rollback=report changed nothing.\n" +
		"Nothing of this project's is left that upstream would mishandle.\n" +
		"Ready to swap back: nothing upstream would mishandle.\n"
	if got := e.out.String(); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}

// Clearing makes a cluster ready, and the verdict counts what it cleared.
func TestVerdictReadyOnceCleared(t *testing.T) {
	e := newEnv(protected(claim("data-0", v1.ClaimBound)), keptPV("pvc-1"))
	r := e.run(t, ModeReport)
	if want := "Not ready: 1 object would be cleared by --prepare-rollback=clear."; r.Verdict.Line() != want {
		t.Errorf("report mode: %q, want %q", r.Verdict.Line(), want)
	}
	e.run(t, ModeClear)
	want := "Ready to swap back: nothing upstream would mishandle (cleared 1 object; 1 kept volume stays kept, and will not expire under upstream)."
	if got := lastLine(e.out.String()); got != want {
		t.Errorf("clear mode: %q\nwant %q", got, want)
	}
	if r := e.run(t, ModeReport); !r.Verdict.Ready || len(r.Findings) != 1 {
		t.Errorf("again: %q, findings %+v", r.Verdict.Line(), r.Findings)
	}
}

// Objects, not rows, are counted: a claim with two findings is one.
func TestVerdictNotReady(t *testing.T) {
	danger := keptPV("pvc-danger")
	danger.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
	e := newEnv(
		protected(claim("pending", v1.ClaimPending), provisionstate.AnnVolumeNameTemplate),
		deleting(protected(claim("deleting", v1.ClaimPending))),
		danger,
		keptPV("pvc-kept"),
	)
	r := e.run(t, ModeClear)
	want := `Not ready: 3 objects need you first (see "needs you" above).`
	if got := lastLine(e.out.String()); got != want || r.Verdict.Ready {
		t.Errorf("verdict %q\nwant %q", got, want)
	}
	e = newEnv(everything()...)
	r = e.run(t, ModeReport)
	want = `Not ready: 4 objects need you first (see "needs you" above), and 3 objects would be cleared by --prepare-rollback=clear.`
	if got := r.Verdict.Line(); got != want {
		t.Errorf("verdict %q\nwant %q", got, want)
	}
}

// The sample report of the documentation: every kind of finding, once.
func TestSampleReport(t *testing.T) {
	e := newEnv(everything()...)
	e.run(t, ModeClear)
	out := e.out.String()
	t.Logf("csi-provisioner --prepare-rollback=clear\n%s", out)
	for _, want := range []string{
		"KIND          NAMESPACE/NAME  DRIVER           WHAT",
		"Keys without a domain are under provisioner.storage.kubernetes.io/.",
		"needs you: provisioning in progress: wait until it is Bound",
		"kept: until " + deadline + "; upstream will not expire it",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
