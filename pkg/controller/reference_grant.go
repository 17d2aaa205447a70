package controller

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// crossNamespaceAllowed refuses a data source in another namespace than the
// claim's unless CrossNamespaceVolumeDataSource is on and a ReferenceGrant
// in the source's namespace lets claims of the claim's namespace read it.
// The refusals are upstream's texts (pkg/controller/controller.go,
// dataSource; pkg/controller/util.go, IsGranted).
func (p *Provisioner) crossNamespaceAllowed(claim *v1.PersistentVolumeClaim, ds *provisionstate.DataSource) error {
	if ds.Namespace == claim.Namespace {
		return nil
	}
	if !p.opts.Features.CrossNamespaceVolumeDataSource {
		return fmt.Errorf("dataSourceRef namespace specified but the CrossNamespaceVolumeDataSource feature is disabled")
	}
	// Without the ReferenceGrant API (see the start-up log) no grant
	// allows it, as upstream finds none then.
	if p.opts.ReferenceGrants != nil {
		grants, err := p.opts.ReferenceGrants.List(ds.Namespace)
		if err != nil {
			return fmt.Errorf("error getting ReferenceGrants in %s namespace from api server: %w", ds.Namespace, err)
		}
		for _, grant := range grants {
			if grantsAccess(grant, claim.Namespace, ds) {
				return nil
			}
		}
	}
	return fmt.Errorf("accessing %s/%s of %s dataSource from %s/%s isn't allowed", ds.Namespace, ds.Name, ds.Kind, claim.Namespace, claim.Name)
}

// grantsAccess tells whether one ReferenceGrant lets claims of namespace
// from read the data source, as Kubernetes' own check does: a "from" entry
// for claims of that namespace, and a "to" entry for the source's group and
// kind, naming it or no object in particular.
func grantsAccess(grant *gatewayv1beta1.ReferenceGrant, from string, ds *provisionstate.DataSource) bool {
	fromClaims := false
	for _, f := range grant.Spec.From {
		if f.Group == "" && f.Kind == "PersistentVolumeClaim" && string(f.Namespace) == from {
			fromClaims = true
			break
		}
	}
	if !fromClaims {
		return false
	}
	for _, to := range grant.Spec.To {
		if string(to.Group) != ds.APIGroup || string(to.Kind) != ds.Kind {
			continue
		}
		if to.Name == nil || *to.Name == "" || string(*to.Name) == ds.Name {
			return true
		}
	}
	return false
}

// ReferenceGrantIndex serves ReferenceGrants from an informer's indexer that
// holds them typed and indexes them by namespace.
func ReferenceGrantIndex(indexer cache.Indexer) ReferenceGrants { return grantIndex{indexer} }

type grantIndex struct{ indexer cache.Indexer }

func (g grantIndex) List(namespace string) ([]*gatewayv1beta1.ReferenceGrant, error) {
	objs, err := g.indexer.ByIndex(cache.NamespaceIndex, namespace)
	if err != nil {
		return nil, err
	}
	grants := make([]*gatewayv1beta1.ReferenceGrant, 0, len(objs))
	for _, obj := range objs {
		if grant, ok := obj.(*gatewayv1beta1.ReferenceGrant); ok {
			grants = append(grants, grant)
		}
	}
	return grants, nil
}
