package mockdriver

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubernetes-csi/csi-test/v5/pkg/sanity"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

const sanitySecrets = `CreateVolumeSecret:
  sanity-create-key: create-value
DeleteVolumeSecret:
  sanity-delete-key: delete-value
NodePublishVolumeSecret:
  sanity-publish-key: publish-value
CreateSnapshotSecret:
  sanity-snapshot-key: snapshot-value
DeleteSnapshotSecret:
  sanity-snapshot-delete-key: snapshot-delete-value
`

// TestSanity runs the csi-test sanity suite against the driver on a real
// unix socket, with every optional feature the driver has turned on.
func TestSanity(t *testing.T) {
	// Ginkgo refuses to run a suite under go test's -count other than 1 and
	// fails the package; `make test` runs the suite once.
	if count := flag.Lookup("test.count"); count != nil && count.Value.String() != "1" {
		t.Skipf("csi-sanity is a Ginkgo suite, which runs only with -count=1 (here -count=%s)", count.Value)
	}
	dir := shortTempDir(t)
	td := startDriver(t, Config{
		NodeID:    "sanity-node",
		Topology:  true,
		Capacity:  1 << 50,
		StateFile: filepath.Join(dir, "state", "state.json"),
	})
	secretsFile := filepath.Join(dir, "secrets.yaml")
	if err := os.WriteFile(secretsFile, []byte(sanitySecrets), 0o600); err != nil {
		t.Fatal(err)
	}

	cfg := sanity.NewTestConfig()
	cfg.Address = td.endpoint
	cfg.TargetPath = filepath.Join(dir, "target")
	cfg.StagingPath = filepath.Join(dir, "staging")
	cfg.SecretsFile = secretsFile
	cfg.TestVolumeParameters = map[string]string{"type": "sanity"}
	cfg.TestVolumeMutableParameters = map[string]string{"iops": "3000"}
	cfg.TestSnapshotParameters = map[string]string{"class": "sanity"}

	var passed, failed, skipped, pending int
	ginkgo.ReportAfterSuite("mock driver sanity counts", func(r ginkgo.Report) {
		specs := r.SpecReports.WithLeafNodeType(types.NodeTypeIt)
		passed = specs.CountWithState(types.SpecStatePassed)
		failed = specs.CountWithState(types.SpecStateFailureStates)
		skipped = specs.CountWithState(types.SpecStateSkipped)
		pending = specs.CountWithState(types.SpecStatePending)
	})
	sanity.Test(t, cfg)

	fmt.Printf("csi-sanity: %d passed, %d failed, %d skipped, %d pending\n", passed, failed, skipped, pending)
	t.Logf("csi-sanity: %d passed, %d failed, %d skipped, %d pending", passed, failed, skipped, pending)
	if passed == 0 {
		t.Fatal("no sanity spec passed; the suite did not run")
	}

	// Sanity cleans up after itself, passing its delete secret each time.
	if snaps := td.Snapshots(); len(snaps) != 0 {
		t.Errorf("sanity left %d snapshots behind: %+v", len(snaps), snaps)
	}
	if vols := td.Volumes(); len(vols) != 0 {
		t.Errorf("sanity left %d volumes behind: %+v", len(vols), vols)
	}
	dels := td.Deletions()
	if len(dels) == 0 {
		t.Fatal("sanity deleted no volume")
	}
	for _, del := range dels {
		if !slices.Equal(del.SecretKeys, []string{"sanity-delete-key"}) {
			t.Fatalf("deletion of %s received secret keys %v", del.VolumeID, del.SecretKeys)
		}
	}
}
