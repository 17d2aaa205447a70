package framework

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// modulePath identifies the repository root when walking up from the
// working directory, which differs between `go test` (the package dir) and
// `go run` (wherever make was called).
const modulePath = "github.com/csi-protect/external-provisioner"

// ControlPlaneDirEnv overrides where StartCluster looks for the control-plane
// binaries when ClusterOptions.BinDir is empty. It matches the variable read by
// hack/build-control-plane.sh.
const ControlPlaneDirEnv = "CONTROL_PLANE_DIR"

// RepoRoot returns the root of this repository: the nearest parent of the
// working directory whose go.mod declares the project's module.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if declaresModule(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
}

func declaresModule(goMod string) bool {
	f, err := os.Open(goMod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.TrimSpace(rest) == modulePath
		}
	}
	return false
}

// DefaultControlPlaneDir returns $CONTROL_PLANE_DIR if set, else the folder
// `make e2e-tools` builds into (_output/control-plane). A relative path is
// taken from the repository root, as the build script does, since `go test`
// runs in the package's folder.
func DefaultControlPlaneDir() (string, error) {
	return repoPath(cmp.Or(os.Getenv(ControlPlaneDirEnv), filepath.Join("_output", "control-plane")))
}

// checkBinaries reports every missing or non-executable program in one error
// that says how to build them.
func checkBinaries(dir string, names ...string) error {
	var missing []string
	for _, name := range names {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return errors.New("missing " + strings.Join(missing, ", ") + " in " + dir + ": run `make e2e-tools`")
}

// BinDirEnv overrides where StartStack looks for csi-provisioner and
// mock-csi-driver when StackOptions.BinDir is empty. It matches the variable
// read by release-tools/build.sh and the Makefile.
const BinDirEnv = "BIN_DIR"

// DefaultBinDir returns $BIN_DIR if set, else bin/ (where `make build` puts
// the binaries). A relative path is taken from the repository root.
func DefaultBinDir() (string, error) {
	return repoPath(cmp.Or(os.Getenv(BinDirEnv), "bin"))
}
