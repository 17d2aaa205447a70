//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// The sidecar runs under nothing but the shipped RBAC through a workload that
// touches every kind of object it handles: leader election, topology
// (Nodes, CSINodes), provisioner secrets, a clone (claim finalizers),
// deletion (PVs, VolumeAttachments) and events. The audit log must show no
// refused request, and every request must be one a rule of the manifest
// grants, in the scope the manifest grants it.
func TestSidecarStaysWithinShippedRBAC(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		Driver:  framework.DriverOptions{Topology: true, NodeID: "node-1"},
		Sidecar: framework.SidecarOptions{LeaderElection: &framework.LeaderElectionOptions{}},
	})
	runRBACWorkload(ctx, t, s, withProvisionerSecrets)
	requireWithinGrants(t, s)
}

// requireWithinGrants fails unless every request the sidecar made so far
// was granted, and granted by a rule of the manifest it runs under, in the
// scope the manifest grants it. It logs how often each grant was used.
func requireWithinGrants(t *testing.T, s *framework.Stack) {
	t.Helper()
	grants := manifestGrants(t, s)
	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Fatalf("read audit log: %v", err)
	}
	if len(events) == 0 {
		t.Fatalf("the audit log has no request of %s", s.SidecarUser())
	}
	used := map[string]int{}
	for _, ev := range events {
		if ev.ResponseStatus != nil && ev.ResponseStatus.Code == 403 {
			t.Errorf("refused: %s %s", ev.Verb, ev.RequestURI)
		}
		if ev.ObjectRef == nil {
			// API discovery is granted to every authenticated user by
			// Kubernetes' default system:discovery role; the sidecar reads
			// it once to see whether LocalVolumes are served.
			if ev.Verb == "get" && isDiscoveryPath(ev.RequestURI) {
				continue
			}
			t.Errorf("non-resource request %s %s: the manifest grants none", ev.Verb, ev.RequestURI)
			continue
		}
		if ev.Verb == "create" && ev.ObjectRef.APIGroup == "authorization.k8s.io" && ev.ObjectRef.Resource == "selfsubjectaccessreviews" {
			// Kubernetes' default system:basic-user role lets every
			// authenticated user ask what it may do; the sidecar asks
			// once whether it may protect snapshot sources.
			continue
		}
		g, ok := grants.allows(ev.Verb, ev.ObjectRef)
		if !ok {
			t.Errorf("request outside %s: %s %s (group %q, resource %q, namespace %q)", s.RBACManifest(),
				ev.Verb, ev.RequestURI, ev.ObjectRef.APIGroup, resourceName(ev.ObjectRef), ev.ObjectRef.Namespace)
			continue
		}
		used[g]++
	}
	t.Logf("%d requests of %s, all granted by %s; per rule and verb:", len(events), s.SidecarUser(), s.RBACManifest())
	for _, g := range grants.list() {
		// Not a failure: some verbs are for paths this workload does not
		// take (rescheduling, deleting a PV that is already gone).
		t.Logf("  %-70s %d", g, used[g])
	}
}

// isDiscoveryPath tells whether uri is an API discovery document: /api,
// /apis, /apis/<group> or /apis/<group>/<version>, with no resource.
func isDiscoveryPath(uri string) bool {
	path, _, _ := strings.Cut(uri, "?")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) == 1:
		return parts[0] == "api" || parts[0] == "apis"
	case parts[0] == "api":
		return len(parts) == 2
	case parts[0] == "apis":
		return len(parts) <= 3
	}
	return false
}

// runRBACWorkload provisions and deletes a claim (with a provisioner secret
// if asked), a clone of it, and a WaitForFirstConsumer claim on a node.
func runRBACWorkload(ctx context.Context, t *testing.T, s *framework.Stack, secrets provisionerSecrets) {
	t.Helper()
	createTopologyNode(ctx, t, s, "node-1")
	class := "mock"
	if secrets {
		class = "mock-secret"
		createSecret(ctx, t, s, "default", "provisioner-creds", "password")
		createStorageClass(ctx, t, s, class, withParameters(map[string]string{
			provisionerSecretNameKey: "provisioner-creds",
			provisionerSecretNSKey:   "${pvc.namespace}",
		}))
	} else {
		createStorageClass(ctx, t, s, class)
	}
	createStorageClass(ctx, t, s, "mock-wffc", waitForFirstConsumer)

	createClaim(ctx, t, s, "default", "original", class)
	waitForClaimBound(ctx, t, s, "default", "original")
	createClaim(ctx, t, s, "default", "copy", class, clonedFrom("original"))
	createClaim(ctx, t, s, "default", "local", "mock-wffc")
	selectNode(ctx, t, s, "default", "local", "node-1")

	var pvs []string
	for _, name := range []string{"original", "copy", "local"} {
		_, pv := waitForClaimBound(ctx, t, s, "default", name)
		pvs = append(pvs, pv.Name)
	}
	for _, name := range []string{"copy", "local", "original"} {
		deleteClaim(ctx, t, s, "default", name)
	}
	for _, pv := range pvs {
		waitForPVGone(ctx, t, s, pv)
	}
	waitForDriverVolumes(ctx, t, s, 0)
}

// grantSet is what the manifest grants the sidecar's ServiceAccount, as
// "verb group/resource" keyed by scope: "" for cluster-wide rules (a
// ClusterRoleBinding), else the namespace of a RoleBinding.
type grantSet map[string][]string

func grantKey(verb, group, resource string) string {
	if group == "" {
		group = "core"
	}
	return verb + " " + group + "/" + resource
}

func resourceName(ref *framework.AuditObjectRef) string {
	if ref.Subresource != "" {
		return ref.Resource + "/" + ref.Subresource
	}
	return ref.Resource
}

// allows returns the grant that covers a request, if any.
func (gs grantSet) allows(verb string, ref *framework.AuditObjectRef) (string, bool) {
	key := grantKey(verb, ref.APIGroup, resourceName(ref))
	for _, scope := range []string{"", ref.Namespace} {
		if slices.Contains(gs[scope], key) {
			return scopedGrant(scope, key), true
		}
	}
	return "", false
}

func scopedGrant(scope, key string) string {
	if scope == "" {
		return key
	}
	return key + " in " + scope
}

// list returns every grant, sorted, in the form allows returns.
func (gs grantSet) list() []string {
	var out []string
	for scope, keys := range gs {
		for _, k := range keys {
			out = append(out, scopedGrant(scope, k))
		}
	}
	sort.Strings(out)
	return out
}

// provisionerSecrets says whether a workload's StorageClass names a
// provisioner secret, which needs a rule upstream's manifest leaves
// commented out.
type provisionerSecrets bool

const (
	withProvisionerSecrets    provisionerSecrets = true
	withoutProvisionerSecrets provisionerSecrets = false
)

// manifestGrants reads the manifest the sidecar runs under (as InstallRBAC
// applied it into the stack's namespace) and expands the rules bound to the
// ServiceAccount.
func manifestGrants(t *testing.T, s *framework.Stack) grantSet {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	manifest := s.RBACManifest()
	if !filepath.IsAbs(manifest) {
		manifest = filepath.Join(root, manifest)
	}
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	rbac := s.RBAC()
	roles := map[string][]rbacv1.PolicyRule{} // kind/name
	type binding struct {
		scope string
		role  rbacv1.RoleRef
	}
	var bindings []binding
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode %s: %v", manifest, err)
		}
		switch kind, _ := obj["kind"].(string); kind {
		case "Role", "ClusterRole":
			var r rbacv1.ClusterRole // a Role has the same rules
			fromUnstructured(t, obj, &r)
			roles[kind+"/"+r.Name] = r.Rules
		case "RoleBinding", "ClusterRoleBinding":
			var b rbacv1.RoleBinding // a ClusterRoleBinding has the same fields
			fromUnstructured(t, obj, &b)
			if !slices.ContainsFunc(b.Subjects, func(sub rbacv1.Subject) bool {
				return sub.Kind == rbacv1.ServiceAccountKind && sub.Name == rbac.ServiceAccount
			}) {
				continue
			}
			scope := ""
			if kind == "RoleBinding" {
				// InstallRBAC moved the namespaced objects here.
				scope = rbac.Namespace
			}
			bindings = append(bindings, binding{scope: scope, role: b.RoleRef})
		}
	}
	gs := grantSet{}
	for _, b := range bindings {
		for _, rule := range roles[b.role.Kind+"/"+b.role.Name] {
			for _, group := range rule.APIGroups {
				for _, res := range rule.Resources {
					for _, verb := range rule.Verbs {
						gs[b.scope] = append(gs[b.scope], grantKey(verb, group, res))
					}
				}
			}
		}
	}
	if len(gs) == 0 {
		t.Fatalf("%s grants ServiceAccount %s nothing", manifest, rbac.ServiceAccount)
	}
	return gs
}

func fromUnstructured(t *testing.T, obj map[string]any, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, into); err != nil {
		t.Fatalf("decode RBAC object: %v", err)
	}
}
