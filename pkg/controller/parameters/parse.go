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
			"fstype specified in parameters with both \"fstype\" and \"%s\" keys", FSTypeKey)
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
			"failed to strip CSI Parameters of prefixed keys: found unknown parameter key \"%s\" with reserved namespace %s", unknown, Prefix)
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
			return t, false, keys.templateError(keys.name, "%s secrets specified in parameters with both \"csi\" and \"%s\" keys", keys.upstreamName(), Prefix)
		}
		name, t.NameKey = r[fieldDeprecatedName], keys.deprecatedName
	}
	if r[fieldDeprecatedNamespace].set {
		if ns.set {
			return t, false, keys.templateError(keys.namespace, "%s secrets specified in parameters with both \"csi\" and \"%s\" keys", keys.upstreamName(), Prefix)
		}
		ns, t.NamespaceKey = r[fieldDeprecatedNamespace], keys.deprecatedNamespace
	}
	switch {
	case !name.set && !ns.set:
		return SecretTemplate{}, false, nil
	case !ns.set:
		return t, false, keys.templateError(t.NameKey, "either name and namespace for %s secrets specified, Both must be specified", keys.upstreamName())
	case !name.set:
		return t, false, keys.templateError(t.NamespaceKey, "either name and namespace for %s secrets specified, Both must be specified", keys.upstreamName())
	case name.value == "":
		return t, false, keys.templateError(t.NameKey, "%s secrets specified in parameters but value of either namespace or name is empty", keys.upstreamName())
	case ns.value == "":
		return t, false, keys.templateError(t.NamespaceKey, "%s secrets specified in parameters but value of either namespace or name is empty", keys.upstreamName())
	}
	t.Name, t.Namespace = name.value, ns.value
	return t, true, nil
}

// templateError words a fault in the secret keys of one kind as upstream:
// its text names the kind, not the key, and says whether it is the default.
func (k secretKeys) templateError(key, format string, args ...any) *ParamError {
	lead := "failed to get name and namespace template from params: "
	if k.kind == defaultKind {
		lead = "failed to get default name and namespace template from params: "
	}
	return paramError(ErrSecretKeys, key, lead+format, args...)
}

// upstreamName is the kind as upstream's texts name it: "NodeStage" for
// node-stage, "Default" for the default keys.
func (k secretKeys) upstreamName() string {
	var b strings.Builder
	for word := range strings.SplitSeq(string(k.kind), "-") {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String()
}

// fsTypeKeys lists the keys that set the filesystem type: FSTypeKey first if
// present, then the deprecated spellings sorted. Only used to name a conflict's key.
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
