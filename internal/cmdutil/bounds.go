package cmdutil

import (
	"fmt"
)

// Number is what a numeric flag holds.
type Number interface {
	~int | ~int32 | ~int64 | ~float32 | ~float64
}

// Positive and NotNegative check a numeric flag's value; each names the
// flag in its error, nil when the value fits.
func Positive[T Number](flag string, v T) error {
	if v <= 0 {
		return fmt.Errorf("%s must be positive, got %v", flag, v)
	}
	return nil
}

func NotNegative[T Number](flag string, v T) error {
	if v < 0 {
		return fmt.Errorf("%s must not be negative, got %v", flag, v)
	}
	return nil
}

// AppendFailed appends the checks that failed to errs, in order.
func AppendFailed(errs []error, checks ...error) []error {
	for _, err := range checks {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
