package parameters

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ErrClaimTemplate: a driver parameter names a claim label or annotation
// the claim lacks, or a ${pvc.…} token that does not exist.
var ErrClaimTemplate = errors.New("invalid claim template in a driver parameter")

// Tokens of claim labels in driver parameters (--claim-parameter-templates),
// as ${pvc.labels['<key>']}; the others are the secret templates' tokens.
const (
	labelTokenPrefix = "pvc.labels['"
	tokenSuffix      = "']"
)

// ClaimInput is what claim tokens in driver parameters are rendered with.
type ClaimInput struct {
	PVName, Namespace, Name string
	// Metadata are the claim's labels and annotations, or those recorded
	// when its provisioning began.
	Metadata ClaimMetadata
}

// ClaimMetadata are the labels and annotations that driver parameters
// read. As a record (a claim annotation) it holds only those read.
type ClaimMetadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Record is the metadata as a claim annotation holds it.
func (m ClaimMetadata) Record() string {
	out, _ := json.Marshal(m) // maps of strings: cannot fail; keys sorted
	return string(out)
}

// ParseClaimMetadata reads a record written by Record.
func ParseClaimMetadata(record string) (ClaimMetadata, error) {
	var m ClaimMetadata
	if err := json.Unmarshal([]byte(record), &m); err != nil {
		return ClaimMetadata{}, fmt.Errorf("recorded claim metadata %q: %w", record, err)
	}
	if m.Record() != record {
		// Only what Record writes: no other field, spelling or text after.
		return ClaimMetadata{}, fmt.Errorf("recorded claim metadata %q is not in the form the sidecar writes, %q", record, m.Record())
	}
	return m, nil
}

// RenderClaimTokens returns a copy of driver parameters with the claim
// tokens in their values filled in, and the labels and annotations read:
// nil when no value holds a claim token.
// The tokens are ${pv.name}, ${pvc.name}, ${pvc.namespace},
// ${pvc.labels['<key>']} and ${pvc.annotations['<key>']}. Anything else,
// a lone '$' or a ${…} of another name, stays as written: a value that
// holds a '$' for the driver is passed on unchanged. The class decides
// which keys a claim feeds; a claim adds no parameter of its own.
// Errors are *ParamError; a missing label or annotation is named with the
// parameter that reads it, all of them in one error.
func RenderClaimTokens(params map[string]string, in ClaimInput) (map[string]string, *ClaimMetadata, error) {
	out := make(map[string]string, len(params))
	var read *ClaimMetadata
	var missing []string
	var firstMissing *string
	for _, key := range slices.Sorted(maps.Keys(params)) {
		before := len(missing)
		rendered, err := renderValue(params[key], in, &read, &missing)
		if err != nil {
			return nil, nil, paramError(ErrClaimTemplate, key, "parameter %q: %v", key, err)
		}
		for i := before; i < len(missing); i++ {
			missing[i] += fmt.Sprintf(" (parameter %q)", key)
		}
		if firstMissing == nil && len(missing) > before {
			firstMissing = &key
		}
		out[key] = rendered
	}
	if len(missing) > 0 {
		return nil, nil, paramError(ErrClaimTemplate, *firstMissing, "the claim has no %s", strings.Join(missing, ", "))
	}
	return out, read, nil
}

// renderValue fills in the claim tokens of one value.
func renderValue(value string, in ClaimInput, read **ClaimMetadata, missing *[]string) (string, error) {
	if !strings.Contains(value, "${") {
		return value, nil
	}
	var b strings.Builder
	rest := value
	for {
		start := strings.Index(rest, "${")
		if start < 0 {
			break
		}
		end := strings.IndexByte(rest[start:], '}')
		if end < 0 {
			break
		}
		token := rest[start+2 : start+end]
		b.WriteString(rest[:start])
		rest = rest[start+end+1:]
		if !claimToken(token) {
			b.WriteString("${" + token + "}")
			continue
		}
		if *read == nil {
			*read = &ClaimMetadata{}
		}
		v, err := lookupClaimToken(token, in, *read, missing)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
	}
	b.WriteString(rest)
	return b.String(), nil
}

// claimToken: the token is the sidecar's to fill in.
func claimToken(token string) bool {
	return strings.HasPrefix(token, "pvc.") || strings.HasPrefix(token, "pv.")
}

func lookupClaimToken(token string, in ClaimInput, read *ClaimMetadata, missing *[]string) (string, error) {
	switch token {
	case tokenPVName:
		return in.PVName, nil
	case tokenPVCName:
		return in.Name, nil
	case tokenPVCNamespace:
		return in.Namespace, nil
	}
	if key, ok := quotedKey(token, labelTokenPrefix); ok {
		return lookupKey("label", key, in.Metadata.Labels, &read.Labels, missing), nil
	}
	if key, ok := quotedKey(token, annotationTokenPrefix); ok {
		return lookupKey("annotation", key, in.Metadata.Annotations, &read.Annotations, missing), nil
	}
	return "", fmt.Errorf("unknown token %q: use ${pv.name}, ${pvc.name}, ${pvc.namespace}, ${pvc.labels['<key>']} or ${pvc.annotations['<key>']}", "${"+token+"}")
}

// lookupKey reads key from from, and notes it in read, or as missing.
func lookupKey(kind, key string, from map[string]string, read *map[string]string, missing *[]string) string {
	v, ok := from[key]
	if !ok {
		if what := fmt.Sprintf("%s %q", kind, key); !slices.Contains(*missing, what) {
			*missing = append(*missing, what)
		}
		return ""
	}
	if *read == nil {
		*read = map[string]string{}
	}
	(*read)[key] = v
	return v
}

// quotedKey returns <key> from a token prefix<key>'].
func quotedKey(token, prefix string) (string, bool) {
	if len(token) < len(prefix)+len(tokenSuffix) || !strings.HasPrefix(token, prefix) || !strings.HasSuffix(token, tokenSuffix) {
		return "", false
	}
	return token[len(prefix) : len(token)-len(tokenSuffix)], true
}
