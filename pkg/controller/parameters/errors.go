package parameters

import (
	"errors"
	"fmt"
)

// Categories of *ParamError, for errors.Is. Upstream gives up on a claim for
// ErrUnknownKey and ErrFSTypeConflict, and retries for the secret errors
// (a claim annotation used by a template may still be fixed).
var (
	// ErrUnknownKey: a key with the reserved prefix that the provisioner does not know.
	ErrUnknownKey = errors.New("unknown parameter with reserved prefix " + Prefix)
	// ErrFSTypeConflict: the filesystem type is set under more than one key.
	ErrFSTypeConflict = errors.New("filesystem type set more than once")
	// ErrSecretKeys: the secret keys of a kind are incomplete, duplicated or empty.
	ErrSecretKeys = errors.New("invalid secret parameters")
	// ErrSecretTemplate: a secret template cannot be resolved to a valid reference.
	ErrSecretTemplate = errors.New("invalid secret template")
)

// ParamError reports a StorageClass parameter that cannot be used. Key is the
// offending parameter. The text is upstream's for the same fault, word for
// word, as it reaches the claim's events, where users' alerts match it.
type ParamError struct {
	Key    string
	Reason string
	Err    error // one of the Err* categories above
}

func (e *ParamError) Error() string { return e.Reason }

func (e *ParamError) Unwrap() error { return e.Err }

func paramError(category error, key, format string, args ...any) *ParamError {
	return &ParamError{Key: key, Reason: fmt.Sprintf(format, args...), Err: category}
}
