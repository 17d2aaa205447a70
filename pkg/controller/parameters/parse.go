package parameters

import (
	"fmt"
	"slices"
	"strings"
)

// SecretTemplate is the unresolved secret reference of one kind, as written
// in the StorageClass.
type SecretTemplate struct {
	Name, Namespace       string // templates, e.g. "${pvc.name}-creds"
	NameKey, NamespaceKey string // the parameter keys they came from
}

// Parsed is the provisioner's view of a StorageClass's parameters.
type Parsed struct {
	// DriverParameters go to CreateVolume: every parameter without the
	// reserved prefix. Deprecated keys stay in, as they always did upstream.
	// The map is new, so callers may add to it.
	DriverParameters map[string]string
	// FSType is "" when the class does not set one.
	FSType string
	// Warnings describe the deprecated keys in use, sorted; nil if none.
	Warnings []string

	secrets   [numKinds]SecretTemplate
	hasSecret [numKinds]bool
}

// SecretTemplate returns the templates kind resolves from, falling back to
// the class's default secret keys like upstream; false when neither is set.
func (p *Parsed) SecretTemplate(kind SecretKind) (SecretTemplate, bool) {
	i, ok := slotOf(kind)
	if !ok {
		return SecretTemplate{}, false
	}
	return p.secrets[i], p.hasSecret[i]
}

// Parse splits StorageClass parameters and checks the reserved keys. Errors
// are *ParamError; they come in upstream's order: filesystem type, then the
// secret keys kind by kind, then unknown reserved keys.
func Parse(params map[string]string) (*Parsed, error) {
	p := &Parsed{DriverParameters: make(map[string]string, len(params))}
	var (
		raw        [numKinds + 1]rawSecret
		fsTypes    int
		unknown    string
		deprecated bool
	)
	for k, v := range params {
		if strings.HasPrefix(k, Prefix) {
			if k == FSTypeKey {
				p.FSType = v
				fsTypes++
			} else if s, ok := secretKeyIndex[k]; ok {
				raw[s.slot][s.field] = rawValue{v, true}
			} else if unknown == "" || k < unknown {
				unknown = k // the smallest, so the error does not vary
			}
			continue
		}
		p.DriverParameters[k] = v
		if isDeprecatedFSType(k) {
			p.FSType = v
			fsTypes++
			deprecated = true
		} else if strings.HasPrefix(k, deprecatedSecretPrefix) {
			if s, ok := secretKeyIndex[k]; ok {
				raw[s.slot][s.field] = rawValue{v, true}
				deprecated = true
			}
		}
	}

	if fsTypes > 1 {
		keys := fsTypeKeys(params)
		return nil, paramError(ErrFSTypeConflict, keys[0],
			"the filesystem type is set by %s; set only %q", quoted(keys), FSTypeKey)
	}
	def, hasDef, defErr := raw[defaultSlot].template(secretTable[defaultSlot])
	for i := range numKinds {
		t, ok, err := raw[i].template(secretTable[i])
		if err != nil {
			return nil, err
		}
		if !ok {
			// Like upstream, a broken default only matters to kinds that use it.
			if defErr != nil {
				return nil, defErr
			}
			t, ok = def, hasDef
		}
		p.secrets[i], p.hasSecret[i] = t, ok
	}
	if unknown != "" {
		return nil, paramError(ErrUnknownKey, unknown,
			"unknown key with the reserved prefix %s", Prefix)
	}
	if deprecated {
		p.Warnings = deprecationWarnings(params)
	}
	return p, nil
}

// rawValue is one parameter as found; set tells "" from absent.
type rawValue struct {
	value string
	set   bool
}

// rawSecret holds the keys of one kind, indexed by field.
type rawSecret [4]rawValue

// template checks the keys of one kind the way upstream does: the current
// and deprecated spelling of a key exclude each other, name and namespace
// come together, and neither may be empty. ok is false when none is set.
func (r *rawSecret) template(keys secretKeys) (t SecretTemplate, ok bool, err *ParamError) {
	name, ns := r[fieldName], r[fieldNamespace]
	t.NameKey, t.NamespaceKey = keys.name, keys.namespace
	if r[fieldDeprecatedName].set {
		if name.set {
			return t, false, paramError(ErrSecretKeys, keys.name,
				"conflicts with the deprecated key %q; set only %q", keys.deprecatedName, keys.name)
		}
		name, t.NameKey = r[fieldDeprecatedName], keys.deprecatedName
	}
	if r[fieldDeprecatedNamespace].set {
		if ns.set {
			return t, false, paramError(ErrSecretKeys, keys.namespace,
				"conflicts with the deprecated key %q; set only %q", keys.deprecatedNamespace, keys.namespace)
		}
		ns, t.NamespaceKey = r[fieldDeprecatedNamespace], keys.deprecatedNamespace
	}
	switch {
	case !name.set && !ns.set:
		return SecretTemplate{}, false, nil
	case !ns.set:
		return t, false, paramError(ErrSecretKeys, t.NameKey,
			"the %s secret needs a namespace too: set %q", keys.kind, keys.namespace)
	case !name.set:
		return t, false, paramError(ErrSecretKeys, t.NamespaceKey,
			"the %s secret needs a name too: set %q", keys.kind, keys.name)
	case name.value == "":
		return t, false, paramError(ErrSecretKeys, t.NameKey, "the %s secret name is empty", keys.kind)
	case ns.value == "":
		return t, false, paramError(ErrSecretKeys, t.NamespaceKey, "the %s secret namespace is empty", keys.kind)
	}
	t.Name, t.Namespace = name.value, ns.value
	return t, true, nil
}

// fsTypeKeys lists the keys that set the filesystem type: FSTypeKey first if
// present, then the deprecated spellings sorted. Only used to explain a conflict.
func fsTypeKeys(params map[string]string) []string {
	var keys []string
	for k := range params {
		if isDeprecatedFSType(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if _, ok := params[FSTypeKey]; ok {
		keys = slices.Insert(keys, 0, FSTypeKey)
	}
	return keys
}

// deprecationWarnings words upstream's warnings for the deprecated keys in
// params, sorted by key.
func deprecationWarnings(params map[string]string) []string {
	var out []string
	for k := range params {
		replacement := ""
		if isDeprecatedFSType(k) {
			replacement = FSTypeKey
		} else if s, ok := secretKeyIndex[k]; ok {
			switch s.field {
			case fieldDeprecatedName:
				replacement = secretTable[s.slot].name
			case fieldDeprecatedNamespace:
				replacement = secretTable[s.slot].namespace
			}
		}
		if replacement != "" {
			out = append(out, fmt.Sprintf("%q is deprecated and will be removed in a future release, please use %q instead", k, replacement))
		}
	}
	slices.Sort(out)
	return out
}

func quoted(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, " and ")
}
