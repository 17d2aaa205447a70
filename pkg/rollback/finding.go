package rollback

import (
	"path"
	"strings"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// Kinds of the objects in the report, as kubectl names them.
const (
	kindClaim  = "pvc"
	kindVolume = "pv"
	kindClass  = "storageclass"
)

// Verb is what became, or would become, of a finding.
type Verb int

const (
	// WouldClear: safe to clear; the report mode changed nothing.
	WouldClear Verb = iota
	// Cleared: removed by the clear mode.
	Cleared
	// Kept: left as it is, and safe under upstream.
	Kept
	// NeedsYou: left as it is; the operator must act before the swap.
	NeedsYou
	// NoAction: nothing to do, and nothing upstream would mishandle (the
	// object changed meanwhile, or the finding only informs).
	NoAction
)

// Action is a finding's verb and, but for the clearing verbs, why.
type Action struct {
	Verb Verb
	Why  string
}

func (a Action) String() string {
	switch a.Verb {
	case WouldClear:
		return "would clear"
	case Cleared:
		return "cleared"
	case Kept:
		return "kept: " + a.Why
	case NeedsYou:
		return "needs you: " + a.Why
	}
	return "no action: " + a.Why
}

func kept(why string) Action     { return Action{Verb: Kept, Why: why} }
func needsYou(why string) Action { return Action{Verb: NeedsYou, Why: why} }
func noAction(why string) Action { return Action{Verb: NoAction, Why: why} }

// Finding is one row of the report: one thing about one object.
type Finding struct {
	Kind            string
	Namespace, Name string
	// Driver is the object's CSI driver or provisioner, "" when unknown.
	Driver string
	What   string
	Action Action
}

// object names the finding's object, namespace/name for a claim.
func (f Finding) object() string {
	if f.Namespace == "" {
		return f.Name
	}
	return f.Namespace + "/" + f.Name
}

// domain is the prefix of this project's keys, left out of the report
// (its header says so) to keep the table narrow.
var domain = path.Dir(provisionstate.ProvisioningProtectionFinalizer) + "/"

// short is a key of this project without its domain.
func short(key string) string { return strings.TrimPrefix(key, domain) }
