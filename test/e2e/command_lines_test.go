//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
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

// commandLineNode is the node the mock driver of the command lines runs
// on: a command line with --node-deployment names it in NODE_NAME.
const commandLineNode = "node-1"

// Every collected upstream and driver command line, with only the pod-local
// values above replaced, starts the sidecar against the real control plane
// and the mock driver, which then provisions a claim. The driver has topology and capacity, like the
// drivers of command lines with --node-deployment and --enable-capacity:
// such a line gets the Pod its POD_NAME names, owned as deep as its
// --capacity-ownerref-level walks, and publishes the capacity of a
// WaitForFirstConsumer class.
func TestCollectedCommandLinesStartTheSidecar(t *testing.T) {
	lines, err := commandlines.Load(collectedCommandLines)
	if err != nil {
		t.Fatal(err)
	}
	// As admin: the command lines name Lease namespaces (kube-system, the
	// driver's own) that the shipped Role does not cover; RBAC has tests of
	// its own.
	ctx, s := startStack(t, framework.StackOptions{
		Driver:  framework.DriverOptions{Topology: true, NodeID: commandLineNode, Capacity: 100 << 30},
		Sidecar: framework.SidecarOptions{Deferred: true, AsAdmin: true},
	})
	if err := s.CreateNodes(ctx, commandLineNode); err != nil {
		t.Fatal(err)
	}
	createStorageClass(ctx, t, s, "mock")
	createStorageClass(ctx, t, s, "mock-wffc", waitForFirstConsumer)

	for i, line := range lines {
		t.Run(line.Name, func(t *testing.T) {
			t.Logf("source: %s", line.Source)
			args := onTheStack(line.ExpandedArgs())
			opts := framework.SidecarOptions{AsAdmin: true, ExtraArgs: args, Env: envList(line.Env)}

			leaseNamespace := flagValue(args, "leader-election-namespace", "default")
			createNamespace(ctx, t, s, leaseNamespace)
			capacity := boolFlag(args, "enable-capacity")
			if capacity {
				createCommandLinePod(ctx, t, s, line, args)
			}
			p, err := s.StartSidecar(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			claim := fmt.Sprintf("line-%d", i)
			createClaim(ctx, t, s, "default", claim, "mock")
			waitForClaimBound(ctx, t, s, "default", claim)
			if capacity {
				waitForCommandLineCapacity(ctx, t, s, line.Env["NAMESPACE"])
			}
			if err := p.Stop(); err != nil {
				t.Fatal(err)
			}
			if capacity {
				// The next command line must publish its own.
				err := s.Client().StorageV1().CSIStorageCapacities(line.Env["NAMESPACE"]).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
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

// createCommandLinePod creates the Pod a command line with
// --enable-capacity names in POD_NAME and NAMESPACE, owned as deep as its
// --capacity-ownerref-level (default 1) walks: a bare Pod for 0, a Pod of a
// StatefulSet for 1, a Pod of a Deployment's ReplicaSet for 2. A Pod that
// an earlier line made is kept.
func createCommandLinePod(ctx context.Context, t *testing.T, s *framework.Stack, line commandlines.CommandLine, args []string) {
	t.Helper()
	namespace, pod := line.Env["NAMESPACE"], line.Env["POD_NAME"]
	if namespace == "" || pod == "" {
		t.Fatalf("a command line with --enable-capacity without NAMESPACE and POD_NAME in its env: %v", line.Env)
	}
	createNamespace(ctx, t, s, namespace)
	if _, err := s.Client().CoreV1().Pods(namespace).Get(ctx, pod, metav1.GetOptions{}); err == nil {
		return
	}
	kind := map[string]framework.WorkloadKind{
		"0": framework.WorkloadPod,
		"1": framework.WorkloadStatefulSet,
		"2": framework.WorkloadDeployment,
	}[flagValue(args, "capacity-ownerref-level", "1")]
	if kind == "" {
		return // -1: no owner, no Pod needed
	}
	w, err := framework.CreateWorkload(ctx, s.Client(), namespace, kind, "owner-of-"+pod)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.CreatePod(ctx, s.Client(), pod, line.Env["NODE_NAME"]); err != nil {
		t.Fatal(err)
	}
}

// waitForCommandLineCapacity waits for the CSIStorageCapacity of the
// WaitForFirstConsumer class on the driver's node, in the namespace of a
// command line's sidecar.
func waitForCommandLineCapacity(ctx context.Context, t *testing.T, s *framework.Stack, namespace string) {
	t.Helper()
	waitFor(ctx, t, s, "the capacity of mock-wffc on "+commandLineNode+" in namespace "+namespace, func(ctx context.Context) (bool, error) {
		list, err := s.Client().StorageV1().CSIStorageCapacities(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range list.Items {
			if segment, ok := framework.CapacitySegment(&c, mockdriver.TopologyKey); ok && segment == commandLineNode && c.StorageClassName == "mock-wffc" && c.Capacity != nil && c.Capacity.Value() > 0 {
				return true, nil
			}
		}
		return false, fmt.Errorf("objects: %s", framework.DescribeCapacities(list.Items))
	})
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

// boolFlag is the value the last "--name" or "--name=value" in args sets,
// false without one.
func boolFlag(args []string, name string) bool {
	on := false
	for _, arg := range args {
		if commandlines.FlagName(arg) == name {
			_, v, hasValue := strings.Cut(arg, "=")
			on = !hasValue || v == "true"
		}
	}
	return on
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
