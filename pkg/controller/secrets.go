package controller

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
)

// secrets resolves the secret references of a class for a claim and
// fetches the provisioner secret that CreateVolume needs.
func (p *Provisioner) secrets(ctx context.Context, params *parameters.Parsed, pvName string, claim *v1.PersistentVolumeClaim) (pvSecrets, map[string]string, error) {
	in := parameters.TemplateInput{PVName: pvName, PVC: claim}
	var s pvSecrets
	refs := []struct {
		kind parameters.SecretKind
		dst  **v1.SecretReference
	}{
		{parameters.Provisioner, &s.deletion},
		{parameters.ControllerPublish, &s.controllerPublish},
		{parameters.NodeStage, &s.nodeStage},
		{parameters.NodePublish, &s.nodePublish},
		{parameters.ControllerExpand, &s.controllerExpand},
		{parameters.NodeExpand, &s.nodeExpand},
		{parameters.ControllerModify, &s.controllerModify},
	}
	for _, r := range refs {
		ref, err := params.SecretRef(r.kind, in)
		if err != nil {
			return pvSecrets{}, nil, err
		}
		*r.dst = ref
	}
	credentials, err := parameters.FetchSecret(ctx, p.opts.Client.CoreV1(), s.deletion)
	if err != nil {
		return pvSecrets{}, nil, err
	}
	return s, credentials, nil
}
