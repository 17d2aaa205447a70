package controller

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

// A claim's CreateVolume must ask for the same volume on every attempt and
// in the replay after the claim is deleted: the name is the driver's
// idempotency key, and a driver may refuse the same name with other
// parameters. So what the settings made of the first attempt is recorded
// on the claim with the provisioning-protection finalizer (see
// provisionstate.RequestRecords), and read back instead of the settings.
// A claim that carries the finalizer without a record began with the
// default. A claim without the finalizer has not begun (or provisioning
// protection is off): the settings decide.

// begun tells whether the claim's provisioning began under provisioning
// protection, so that its records, or their absence, are what it began
// with.
func begun(claim *v1.PersistentVolumeClaim) bool {
	return finalizer.Has(claim, provisionstate.ProvisioningProtectionFinalizer)
}

// volumeNames are the names of a claim's volume.
type volumeNames struct {
	// pv is the PV's object name, as upstream makes it.
	pv string
	// driver is the name CreateVolume gives the driver.
	driver string
}

// volumeNames names the claim's volume, and returns the record of the name
// template ("" for the default).
func (p *Provisioner) volumeNames(claim *v1.PersistentVolumeClaim) (volumeNames, string, error) {
	pv, err := p.namer.PVName(claim.UID)
	if err != nil {
		return volumeNames{}, "", err
	}
	spec, record := p.namer.Current(), ""
	if recorded, ok := claim.Annotations[provisionstate.AnnVolumeNameTemplate]; ok {
		if spec, err = volumename.ParseRecord(recorded); err != nil {
			return volumeNames{}, "", fmt.Errorf("annotation %s: %w", provisionstate.AnnVolumeNameTemplate, err)
		}
		record = recorded
	} else if spec != nil && !begun(claim) {
		record = spec.Record()
	} else {
		return volumeNames{pv: pv, driver: pv}, "", nil
	}
	driver, err := spec.Name(claim)
	return volumeNames{pv: pv, driver: driver}, record, err
}

// driverParameters renders the claim tokens of the class's driver
// parameters with --claim-parameter-templates, and returns the record of
// the claim metadata they read ("" when they hold no token, or the option
// is off). A claim that recorded metadata while the option was on is not
// provisioned while it is off: its parameters would differ from its first
// attempt's, and a claim author must not turn rendering on by writing the
// record.
func (p *Provisioner) driverParameters(claim *v1.PersistentVolumeClaim, params map[string]string, pvName string) (map[string]string, string, error) {
	in := parameters.ClaimInput{PVName: pvName, Namespace: claim.Namespace, Name: claim.Name}
	recorded, hasRecord := claim.Annotations[provisionstate.AnnParameterClaimMetadata]
	switch {
	case hasRecord && !p.opts.ClaimParameterTemplates:
		return nil, "", fmt.Errorf("claim's provisioning began with --claim-parameter-templates (annotation %s): turn it on again to finish it", provisionstate.AnnParameterClaimMetadata)
	case hasRecord:
		metadata, err := parameters.ParseClaimMetadata(recorded)
		if err != nil {
			return nil, "", fmt.Errorf("annotation %s: %w", provisionstate.AnnParameterClaimMetadata, err)
		}
		in.Metadata = metadata
		out, _, err := parameters.RenderClaimTokens(params, in)
		return out, recorded, err
	case !p.opts.ClaimParameterTemplates || begun(claim):
		return params, "", nil
	}
	in.Metadata = parameters.ClaimMetadata{Labels: claim.Labels, Annotations: claim.Annotations}
	out, read, err := parameters.RenderClaimTokens(params, in)
	if err != nil || read == nil {
		return out, "", err
	}
	return out, read.Record(), nil
}

// requestRecords are the annotations that record a request, set and unset.
type requestRecords map[string]string

// set adds a record; "" records the default, which is no annotation.
func (r requestRecords) set(key, value string) {
	if value != "" {
		r[key] = value
	}
}

// options writes the records with the finalizer.
func (r requestRecords) options() []finalizer.Option {
	var opts []finalizer.Option
	for _, key := range []string{provisionstate.AnnVolumeNameTemplate, provisionstate.AnnParameterClaimMetadata} {
		if value, ok := r[key]; ok {
			opts = append(opts, finalizer.WithAnnotation(key, value))
		}
	}
	return opts
}

// matches tells whether a claim that began records what r does: a request
// made from an older copy of it must not be sent.
func (r requestRecords) matches(claim *v1.PersistentVolumeClaim) error {
	if !begun(claim) {
		return nil
	}
	for _, key := range []string{provisionstate.AnnVolumeNameTemplate, provisionstate.AnnParameterClaimMetadata} {
		if claim.Annotations[key] != r[key] {
			return fmt.Errorf("claim %s/%s records another %s than this attempt was prepared with; retrying", claim.Namespace, claim.Name, key)
		}
	}
	return nil
}
