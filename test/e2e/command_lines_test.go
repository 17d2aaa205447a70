//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil/commandlines"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const collectedCommandLines = "../../cmd/csi-provisioner/testdata/command-lines.yaml"

// Flags whose values only make sense in the pod the command line was written
// for: the socket and the kubeconfig are the stack's, and listening ports are
// chosen by the kernel so that no two runs, or other programs, collide.
var podOnlyFlags = map[string]string{
	"csi-address":     "",
	"kubeconfig":      "",
	"http-endpoint":   "--http-endpoint=127.0.0.1:0",
	"metrics-address": "--metrics-address=127.0.0.1:0",
}

// Every collected upstream and driver command line, with only the pod-local
// values above replaced, starts the sidecar against the real control plane
// and the mock driver, which then provisions a claim; a command line that
// turns on a capability this release does not build yet makes the sidecar
// exit at once, naming it.
func TestCollectedCommandLinesStartTheSidecar(t *testing.T) {
	lines, err := commandlines.Load(collectedCommandLines)
	if err != nil {
		t.Fatal(err)
	}
	// As admin: the command lines name Lease namespaces (kube-system, the
	// driver's own) that the shipped Role does not cover; RBAC has tests of
	// its own.
	ctx, s := startStack(t, framework.StackOptions{Sidecar: framework.SidecarOptions{Deferred: true, AsAdmin: true}})
	createStorageClass(ctx, t, s, "mock")

	for i, line := range lines {
		t.Run(line.Name, func(t *testing.T) {
			t.Logf("source: %s", line.Source)
			args := onTheStack(line.ExpandedArgs())
			opts := framework.SidecarOptions{AsAdmin: true, ExtraArgs: args, Env: envList(line.Env)}

			if needs := line.Needed(); len(needs) > 0 {
				p, err := s.StartSidecarExpectingExit(ctx, opts)
				if err != nil {
					t.Fatal(err)
				}
				// Refusing is the first thing flag validation does; a minute
				// is generous for a process that is still running.
				waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				exitErr := p.Wait(waitCtx)
				if waitCtx.Err() != nil {
					_ = p.Kill()
					t.Fatalf("the sidecar kept running with %s on", line.Needs)
				}
				log, _ := os.ReadFile(p.LogFile())
				if exitErr == nil || !strings.Contains(string(log), "is not supported by this release") {
					t.Errorf("needs %s: want a non-zero exit that names it, got %v and log:\n%s", line.Needs, exitErr, log)
				}
				return
			}

			leaseNamespace := flagValue(args, "leader-election-namespace", "default")
			createNamespace(ctx, t, s, leaseNamespace)
			p, err := s.StartSidecar(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			claim := fmt.Sprintf("line-%d", i)
			createClaim(ctx, t, s, "default", claim, "mock")
			waitForClaimBound(ctx, t, s, "default", claim)
			if err := p.Stop(); err != nil {
				t.Fatal(err)
			}
			// The next command line's sidecar must not wait out this one's
			// Lease (some set it to minutes).
			err = s.Client().CoordinationV1().Leases(leaseNamespace).Delete(ctx, lockName(s.DriverName()), metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		})
	}
}

// onTheStack replaces the pod-only flags of a collected command line.
func onTheStack(args []string) []string {
	var out []string
	for _, arg := range args {
		replacement, podOnly := podOnlyFlags[commandlines.FlagName(arg)]
		switch {
		case !podOnly:
			out = append(out, arg)
		case replacement != "":
			out = append(out, replacement)
		}
	}
	return out
}

// flagValue is the value the last "--name=value" in args sets, or def.
func flagValue(args []string, name, def string) string {
	value := def
	for _, arg := range args {
		if commandlines.FlagName(arg) == name {
			if _, v, ok := strings.Cut(arg, "="); ok {
				value = v
			}
		}
	}
	return value
}

func envList(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// lockName is the Lease name csi-lib-utils derives from the driver name.
func lockName(driver string) string {
	name := notInLeaseName.ReplaceAllString(driver, "-")
	if strings.HasSuffix(name, "-") {
		name += "X"
	}
	return name
}
