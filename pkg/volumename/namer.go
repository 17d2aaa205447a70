package volumename

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
)

// hashLength is how many hex digits of the SHA-256 of a name too long for
// MaxLength end its shortened form (64 bits: two of a million shortened
// names share one about once in 37 million).
const hashLength = 16

// MinMaxLength is the smallest MaxLength: a shortened name keeps at least
// 15 readable characters before its hash.
const MinMaxLength = 32

// DefaultMaxLength is --volume-name-max-length's default, the length of a
// DNS label, which most backends accept.
const DefaultMaxLength = 63

// Options configure a Namer.
type Options struct {
	// Prefix and UUIDLength make the PV name, as upstream does
	// (--volume-name-prefix, --volume-name-uuid-length): a negative
	// UUIDLength keeps the whole UID.
	Prefix     string
	UUIDLength int
	// Template, if not empty, makes the name CreateVolume gives the driver
	// (--volume-name-template); MaxLength bounds it.
	Template  string
	MaxLength int
}

// Namer names the volumes of claims.
type Namer struct {
	prefix     string
	uuidLength int
	// current is the spec of --volume-name-template, nil without one.
	current *Spec
}

// New checks the template, if any; the prefix and UUID length are checked
// by whoever reads the flags, as they were before templates.
func New(opts Options) (*Namer, error) {
	if opts.Prefix == "" {
		return nil, errors.New("volume names need a prefix")
	}
	n := &Namer{prefix: opts.Prefix, uuidLength: opts.UUIDLength}
	if opts.Template == "" {
		return n, nil
	}
	spec := &Spec{Template: opts.Template, Prefix: opts.Prefix, MaxLength: opts.MaxLength}
	if err := spec.check(); err != nil {
		return nil, err
	}
	n.current = spec
	return n, nil
}

// PVName is the PV's object name for a claim: <prefix>-<UID>, the UID
// stripped of dashes and cut to UUIDLength when that is not negative.
// Without a template it is also the driver's name of the volume.
func (n *Namer) PVName(uid types.UID) (string, error) {
	if n.uuidLength < 0 {
		return fmt.Sprintf("%s-%s", n.prefix, uid), nil
	}
	compact := strings.ReplaceAll(string(uid), "-", "")
	if n.uuidLength > len(compact) {
		return "", fmt.Errorf("volume name UUID length %d is longer than the claim UID %q", n.uuidLength, uid)
	}
	return fmt.Sprintf("%s-%s", n.prefix, compact[:n.uuidLength]), nil
}

// Current is the spec new provisioning starts with, nil when the driver's
// name of a volume is its PV name.
func (n *Namer) Current() *Spec { return n.current }

// Spec is a template with what its names depend on besides the claim.
// Its Record is what a claim keeps of the spec its provisioning began
// with; the JSON field names are part of that record's format.
type Spec struct {
	Template  string `json:"template"`
	Prefix    string `json:"prefix"`
	MaxLength int    `json:"maxLength"`

	// parsed is Template, parsed and checked by New or ParseRecord.
	parsed template
}

// Record is the spec as a claim annotation holds it.
func (s *Spec) Record() string {
	out, _ := json.Marshal(s) // three plain fields: cannot fail
	return string(out)
}

// ParseRecord reads a recorded spec and checks it as New checks a flag: a
// record is written by the sidecar, but anyone who may edit the claim may
// edit it too, so it must not name anything but this claim's volume.
func ParseRecord(record string) (*Spec, error) {
	var s Spec
	if err := json.Unmarshal([]byte(record), &s); err != nil {
		return nil, fmt.Errorf("recorded volume name spec %q: %w", record, err)
	}
	if s.Record() != record {
		// Only what Record writes: no other field, spelling or text after.
		return nil, fmt.Errorf("recorded volume name spec %q is not in the form the sidecar writes, %q", record, s.Record())
	}
	if s.Prefix == "" {
		return nil, fmt.Errorf("recorded volume name spec %q has no prefix", record)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("recorded volume name spec: %w", err)
	}
	return &s, nil
}

// check parses the template and checks the spec gives valid names.
func (s *Spec) check() error {
	if s.MaxLength < MinMaxLength {
		return fmt.Errorf("volume name maximum length %d is below %d", s.MaxLength, MinMaxLength)
	}
	if msgs := validation.IsDNS1123Subdomain(s.Prefix); len(msgs) > 0 {
		return fmt.Errorf("volume name prefix %q: %s", s.Prefix, strings.Join(msgs, "; "))
	}
	t, err := parseTemplate(s.Template)
	if err != nil {
		return err
	}
	if probe := s.nameOf(t, values{namespace: "n", name: "n", uid: "0", prefix: s.Prefix}); !validName(probe) {
		return fmt.Errorf("volume name template %q gives names like %q, which must start and end with a letter or digit", s.Template, probe)
	}
	s.parsed = t
	return nil
}

// Name renders the spec for a claim. The spec must come from New or
// ParseRecord.
func (s *Spec) Name(claim *v1.PersistentVolumeClaim) (string, error) {
	if s.parsed == nil {
		return "", errors.New("volume name spec was not checked")
	}
	if claim.UID == "" {
		return "", fmt.Errorf("claim %s/%s has no UID to name its volume after", claim.Namespace, claim.Name)
	}
	return s.nameOf(s.parsed, values{namespace: claim.Namespace, name: claim.Name, uid: string(claim.UID), prefix: s.Prefix}), nil
}

// nameOf fills t in, replaces what a driver may refuse with '-', and
// shortens a name longer than s.MaxLength to its start, a '-' and a hash
// of the whole name.
func (s *Spec) nameOf(t template, v values) string {
	name := strings.Map(func(r rune) rune {
		if nameChar(r) {
			return r
		}
		return '-'
	}, t.render(v))
	if len(name) <= s.MaxLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	hash := hex.EncodeToString(sum[:])[:hashLength]
	if keep := strings.TrimRight(name[:s.MaxLength-hashLength-1], "-"); keep != "" {
		return keep + "-" + hash
	}
	return hash
}

// validName: a name starts and ends with a letter or a digit.
func validName(name string) bool {
	return name != "" && name[0] != '-' && name[len(name)-1] != '-'
}
