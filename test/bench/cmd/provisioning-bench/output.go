package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/plots"
	"github.com/csi-protect/external-provisioner/test/bench/report"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// writeOverview draws the plots and writes report.md and results.json.
func writeOverview(ov *report.Overview, outDir string) error {
	plots, err := plots.Draw(ov, outDir)
	if err != nil {
		return err
	}
	ov.Plots = plots
	return writeOutputs(outDir, "report", "results", ov, ov.Markdown())
}

// invocation is how the benchmark was started, for the report: the make
// target when make ran it, with the environment variable that changes what
// it does, and the program's own arguments.
func invocation() bench.Invocation {
	inv := bench.Invocation{Program: strings.Join(append([]string{"provisioning-bench"}, os.Args[1:]...), " ")}
	if os.Getenv("MAKELEVEL") != "" {
		inv.Command = "make bench"
		if v := os.Getenv(quickEnv); v != "" {
			inv.Command = quickEnv + "=" + v + " " + inv.Command
		}
		// make passes the variables of its command line on in the
		// environment.
		if v := os.Getenv("BASELINE"); v != "" {
			inv.Command += " BASELINE=" + v
		}
	}
	return inv
}

func resolveOutDir(dir string) (string, error) {
	dir, err := fromRoot(dir)
	if err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// checkExecutable fails unless path is a regular file someone may run.
func checkExecutable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

// fromRoot makes a relative folder relative to the repository root rather
// than to the working directory; "" stays "" (the default).
func fromRoot(dir string) (string, error) {
	if dir == "" || filepath.IsAbs(dir) {
		return dir, nil
	}
	root, err := framework.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, dir), nil
}

// logToFile sends the program's own klog output (client-go's watch
// warnings while the API server is saturated) to a file, so that the
// progress lines on stderr stay readable.
func logToFile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	klog.LogToStderr(false)
	klog.SetOutput(f)
	return func() {
		klog.Flush()
		_ = f.Close()
	}, nil
}

// writeOutputs writes a report's markdown as name.md and its figures as
// jsonName.json.
func writeOutputs(dir, name, jsonName string, rep any, md string) error {
	if err := writeMarkdown(dir, name, md); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, jsonName+".json"), append(data, '\n'), 0o644)
}

func writeMarkdown(dir, name, md string) error {
	return os.WriteFile(filepath.Join(dir, name+".md"), []byte(md), 0o644)
}
