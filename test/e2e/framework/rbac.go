package framework

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// RBACManifest is the sidecar's shipped RBAC, relative to the repository root.
const RBACManifest = "deploy/kubernetes/rbac.yaml"

// VolumeProtectionRBACManifest is the extra RBAC of the PVC protection
// controller.
const VolumeProtectionRBACManifest = "deploy/kubernetes/rbac-volume-protection.yaml"

// ClaimConditionsRBACManifest is the extra RBAC of the claim conditions
// controller (gate ClaimConditions): patch on persistentvolumeclaims/status.
const ClaimConditionsRBACManifest = "deploy/kubernetes/rbac-claim-conditions.yaml"

// CapacityRBACManifest is the extra RBAC of capacity tracking
// (--enable-capacity), for the stack's namespace.
const CapacityRBACManifest = "deploy/kubernetes/rbac-capacity.yaml"

// ServiceAccountKubeconfigOptions configures Cluster.ServiceAccountKubeconfig.
type ServiceAccountKubeconfigOptions struct {
	Namespace string
	Name      string
	// Path of the kubeconfig to write. Defaults to
	// <work dir>/<namespace>-<name>.kubeconfig.
	Path string
	// Expiration of the token. Defaults to 24h, longer than any test.
	Expiration time.Duration
}

// ServiceAccountKubeconfig requests a token for an existing ServiceAccount
// (TokenRequest API) and writes a kubeconfig that authenticates with it, so a
// process runs with exactly that account's permissions. It returns the path.
func (c *Cluster) ServiceAccountKubeconfig(ctx context.Context, opts ServiceAccountKubeconfigOptions) (string, error) {
	if opts.Namespace == "" || opts.Name == "" {
		return "", errors.New("ServiceAccountKubeconfigOptions needs Namespace and Name")
	}
	if opts.Expiration <= 0 {
		opts.Expiration = 24 * time.Hour
	}
	if opts.Path == "" {
		opts.Path = filepath.Join(c.workDir, opts.Namespace+"-"+opts.Name+".kubeconfig")
	}
	secs := int64(opts.Expiration / time.Second)
	tr, err := c.client.CoreV1().ServiceAccounts(opts.Namespace).CreateToken(ctx, opts.Name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &secs}},
		metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("request a token for ServiceAccount %s/%s: %w", opts.Namespace, opts.Name, err)
	}
	user := "system:serviceaccount:" + opts.Namespace + ":" + opts.Name
	if err := writeKubeconfig(opts.Path, c.host, c.caPEM, user, tr.Status.Token); err != nil {
		return "", err
	}
	return opts.Path, nil
}

// repoPath returns path, relative to the repository root unless absolute,
// as an absolute path.
func repoPath(path string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, path), nil
}

// RBACOptions configures Cluster.InstallRBAC.
type RBACOptions struct {
	// ManifestPath defaults to RBACManifest in the repository.
	ManifestPath string
	// SkipKinds are objects of the manifests not to apply (see
	// ManifestOptions.SkipKinds).
	SkipKinds []string
	// ExtraManifests are applied after it, e.g. VolumeProtectionRBACManifest
	// for a sidecar with PVC protection on. Relative paths are relative to
	// the repository root.
	ExtraManifests []string
	// Namespace to install the ServiceAccount, Roles and bindings into.
	// Defaults to the manifest's own ("default"). ClusterRoleBindings are
	// cluster-wide, so one namespace per cluster is the intended use.
	Namespace string
	// KubeconfigPath is where the ServiceAccount's kubeconfig goes; see
	// ServiceAccountKubeconfigOptions.Path.
	KubeconfigPath string
	// Timeout bounds the wait for the permissions to take effect. Defaults
	// to 30s.
	Timeout time.Duration
}

// RBACInstall is the outcome of InstallRBAC.
type RBACInstall struct {
	// Namespace and ServiceAccount identify the account from the manifest.
	Namespace      string
	ServiceAccount string
	// Kubeconfig authenticates as that account (for --kubeconfig).
	Kubeconfig string
	// RESTConfig is the same identity for in-process clients.
	RESTConfig *rest.Config
}

// InstallRBAC applies the shipped RBAC manifest (exactly one ServiceAccount
// plus its roles and bindings), writes a kubeconfig for the ServiceAccount and
// waits until the apiserver grants every rule of the bound roles, so the
// sidecar started next does not race the RBAC authorizer's caches.
func (c *Cluster) InstallRBAC(ctx context.Context, opts RBACOptions) (*RBACInstall, error) {
	logger := klog.FromContext(ctx)
	if opts.ManifestPath == "" {
		root, err := RepoRoot()
		if err != nil {
			return nil, err
		}
		opts.ManifestPath = filepath.Join(root, RBACManifest)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	objs, err := ApplyManifests(ctx, c.restConfig, ManifestOptions{Path: opts.ManifestPath, Namespace: opts.Namespace, SkipKinds: opts.SkipKinds})
	if err != nil {
		return nil, err
	}
	for _, path := range opts.ExtraManifests {
		path, err := repoPath(path)
		if err != nil {
			return nil, err
		}
		extra, err := ApplyManifests(ctx, c.restConfig, ManifestOptions{Path: path, Namespace: opts.Namespace})
		if err != nil {
			return nil, err
		}
		objs = append(objs, extra...)
	}
	var accounts []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "ServiceAccount" {
			accounts = append(accounts, o)
		}
	}
	if len(accounts) != 1 {
		return nil, fmt.Errorf("%s: want exactly one ServiceAccount, found %d", opts.ManifestPath, len(accounts))
	}
	install := &RBACInstall{Namespace: accounts[0].GetNamespace(), ServiceAccount: accounts[0].GetName()}
	install.Kubeconfig, err = c.ServiceAccountKubeconfig(ctx, ServiceAccountKubeconfigOptions{
		Namespace: install.Namespace,
		Name:      install.ServiceAccount,
		Path:      opts.KubeconfigPath,
	})
	if err != nil {
		return nil, err
	}
	if install.RESTConfig, err = clientcmd.BuildConfigFromFlags("", install.Kubeconfig); err != nil {
		return nil, err
	}

	checks, err := grantedRules(objs, install.Namespace, install.ServiceAccount)
	if err != nil {
		return nil, err
	}
	saClient, err := kubernetes.NewForConfig(install.RESTConfig)
	if err != nil {
		return nil, err
	}
	waitCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	err = waitUntil(waitCtx, "the ServiceAccount's permissions", nil, func(ctx context.Context) (bool, error) {
		for _, attr := range checks {
			ssar := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attr}}
			res, err := saClient.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, ssar, metav1.CreateOptions{})
			if err != nil {
				return false, err
			}
			if !res.Status.Allowed {
				return false, fmt.Errorf("%s %s.%s in %q not allowed yet", attr.Verb, attr.Resource, attr.Group, attr.Namespace)
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	logger.V(1).Info("Installed RBAC", "manifest", opts.ManifestPath, "namespace", install.Namespace, "serviceAccount", install.ServiceAccount, "checkedRules", len(checks))
	return install, nil
}

// grantedRules returns one access check per rule of every Role or ClusterRole
// in objs that a binding in objs grants to the ServiceAccount: the first verb
// on the first resource, which is enough to see that the binding is in force.
func grantedRules(objs []*unstructured.Unstructured, namespace, account string) ([]authorizationv1.ResourceAttributes, error) {
	roles := map[string][]rbacv1.PolicyRule{} // kind/namespace/name
	var bindings []rbacv1.RoleBinding         // ClusterRoleBindings too, with no namespace
	for _, o := range objs {
		switch o.GetKind() {
		case "Role", "ClusterRole":
			var r rbacv1.ClusterRole // Role has the same rules field
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &r); err != nil {
				return nil, err
			}
			roles[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = r.Rules
		case "RoleBinding", "ClusterRoleBinding":
			var b rbacv1.RoleBinding
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &b); err != nil {
				return nil, err
			}
			bindings = append(bindings, b)
		}
	}
	var checks []authorizationv1.ResourceAttributes
	for _, b := range bindings {
		if !bindsAccount(b.Subjects, namespace, account) {
			continue
		}
		// A RoleBinding may reference a ClusterRole; permissions then apply
		// in the binding's namespace only.
		roleNS := ""
		if b.RoleRef.Kind == "Role" {
			roleNS = b.Namespace
		}
		for _, rule := range roles[b.RoleRef.Kind+"/"+roleNS+"/"+b.RoleRef.Name] {
			if len(rule.Verbs) == 0 || len(rule.Resources) == 0 {
				continue
			}
			group := ""
			if len(rule.APIGroups) > 0 && rule.APIGroups[0] != "*" {
				group = rule.APIGroups[0]
			}
			resource, sub, _ := strings.Cut(rule.Resources[0], "/")
			checks = append(checks, authorizationv1.ResourceAttributes{
				Namespace:   b.Namespace,
				Verb:        rule.Verbs[0],
				Group:       group,
				Resource:    resource,
				Subresource: sub,
			})
		}
	}
	if len(checks) == 0 {
		return nil, fmt.Errorf("no rule in the manifest is bound to ServiceAccount %s/%s", namespace, account)
	}
	return checks, nil
}

func bindsAccount(subjects []rbacv1.Subject, namespace, account string) bool {
	for _, s := range subjects {
		if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == namespace && s.Name == account {
			return true
		}
	}
	return false
}
